import { DomainError } from '../../services/errors';
import { TRACKING_STATUSES, type Carrier, type TrackingReport, type TrackingStatus } from './port';

export interface EasyPostOptions {
  /** An EasyPost API key (test or production mode), sent as the Basic auth user name. */
  apiKey: string;
  /** Service root, `https://api.easypost.com`; a local fake in tests. */
  baseUrl: string;
  timeoutMs?: number;
}

/** EasyPost's Tracker statuses (API reference, "Tracker"). */
type EasyPostStatus =
  | 'unknown'
  | 'pre_transit'
  | 'in_transit'
  | 'out_for_delivery'
  | 'delivered'
  | 'available_for_pickup'
  | 'return_to_sender'
  | 'failure'
  | 'cancelled'
  | 'error';

interface TrackingDetail {
  message: string | null;
  status: EasyPostStatus;
  datetime: string;
  tracking_location?: { city: string | null; state: string | null; country: string | null } | null;
}

/** The fields of an EasyPost Tracker this adapter reads. */
interface Tracker {
  id: string;
  tracking_code: string;
  status: EasyPostStatus;
  tracking_details?: TrackingDetail[];
}

/** Statuses that say how far the parcel got, as ours. */
const PROGRESS: Partial<Record<EasyPostStatus, TrackingStatus>> = {
  pre_transit: 'PRE_TRANSIT',
  in_transit: 'IN_TRANSIT',
  out_for_delivery: 'OUT_FOR_DELIVERY',
  // Waiting at a pickup point: the last mile, not yet with the recipient.
  available_for_pickup: 'OUT_FOR_DELIVERY',
  delivered: 'DELIVERED',
};

/**
 * Statuses with no place in ours (the parcel is not progressing): the status stays how far it got,
 * and the detail says what happened, before the carrier's words.
 */
const SETBACK: Partial<Record<EasyPostStatus, string>> = {
  available_for_pickup: 'Available for pickup',
  return_to_sender: 'Being returned to the sender',
  failure: 'The carrier could not deliver it',
  cancelled: 'The carrier cancelled the shipment',
  error: 'The carrier reports a problem with this tracking number',
};

const FALLBACK_DETAIL: Record<TrackingStatus, string> = {
  PRE_TRANSIT: 'The carrier knows the parcel but has not received it yet.',
  IN_TRANSIT: 'On its way.',
  OUT_FOR_DELIVERY: 'Out for delivery.',
  DELIVERED: 'Delivered.',
};

/**
 * The provider's own words (an error body, an HTTP status, a socket error) go to the log as the
 * cause, never into the message: they may name the account, the key or the network.
 */
const unavailableBecause = (detail: string) =>
  new DomainError(
    'unavailable',
    'temporarily-unavailable',
    'The carrier tracking service is unavailable; tracking resumes on its own.',
    {},
    { cause: new Error(`easypost: ${detail}`) },
  );

const rank = (status: TrackingStatus) => TRACKING_STATUSES.indexOf(status);

/** Our report of a tracker; null while EasyPost does not know the number (`unknown`). */
export function reportOf(tracker: Tracker): TrackingReport | null {
  if (tracker.status === 'unknown') return null;
  const details = tracker.tracking_details ?? [];
  // How far the parcel got: the tracker's status when it is progress, else the furthest scan.
  const reached = details.map((d) => PROGRESS[d.status]).filter((s): s is TrackingStatus => s !== undefined);
  const status = PROGRESS[tracker.status] ?? reached.reduce<TrackingStatus>((far, s) => (rank(s) > rank(far) ? s : far), 'PRE_TRANSIT');
  const latest = details.at(-1);
  const place = [latest?.tracking_location?.city, latest?.tracking_location?.country].filter(Boolean).join(', ');
  const words = latest?.message ? `${latest.message}${place ? ` (${place})` : ''}` : '';
  const setback = SETBACK[tracker.status];
  const detail = setback ? `${setback}${words ? `: ${words}` : '.'}` : words || FALLBACK_DETAIL[status];
  return { status, detail };
}

/**
 * Production carrier: the EasyPost Tracker API (v2), which follows parcels of most carriers and
 * detects the carrier from the tracking code. A number's tracker is found with
 * `GET /v2/trackers?tracking_code=…` (newest first); the first time, `POST /v2/trackers` creates
 * it, after which EasyPost keeps it up to date. Authentication is HTTP Basic with the API key as
 * the user name and no password.
 */
export class EasyPostCarrier implements Carrier {
  readonly name = 'easypost';
  readonly source = 'CARRIER';
  readonly unknownNumberDetail = 'The carrier has no record of this tracking number yet; check that it was entered correctly.';

  constructor(private readonly options: EasyPostOptions) {}

  follows(): boolean {
    return true;
  }

  async track(trackingNumber: string): Promise<TrackingReport | null> {
    const found = await this.call<{ trackers: Tracker[] }>(
      'GET',
      `/v2/trackers?tracking_code=${encodeURIComponent(trackingNumber)}&page_size=1`,
    );
    const tracker =
      found.trackers?.[0] ?? (await this.call<Tracker>('POST', '/v2/trackers', { tracker: { tracking_code: trackingNumber } }));
    return reportOf(tracker);
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const url = new URL(path, this.options.baseUrl);
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${this.options.apiKey}:`).toString('base64')}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      text = await res.text();
    } catch (err) {
      throw unavailableBecause(err instanceof Error ? err.message : String(err));
    }
    // An error answer is `{error: {code, message, errors}}`; all of it is the provider's.
    if (!res.ok) throw unavailableBecause(`${method} ${url.pathname}: HTTP ${res.status} ${text.slice(0, 500)}`);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw unavailableBecause(`${method} ${url.pathname}: not JSON: ${text.slice(0, 200)}`);
    }
  }
}
