import type { DataSource } from 'typeorm';
import { queueAlertDigest, type DigestRequest } from '../src/services/alerts/digest';

export interface AlertActivityDeps {
  db: DataSource;
}

export interface AlertActivities {
  /** The digest e-mail to deliver, or null (alert e-mails off, or nothing unread and new). */
  queueAlertDigest(request: DigestRequest): Promise<string | null>;
}

export function createAlertActivities(deps: AlertActivityDeps): AlertActivities {
  return {
    queueAlertDigest: (request) => queueAlertDigest(deps.db, request),
  };
}
