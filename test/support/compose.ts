import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export const ROOT = path.resolve(__dirname, '../..');

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  [key: string]: unknown;
}

/** docker-compose.yml as Compose reads it: YAML with merge keys (`<<`) resolved. */
export function readCompose(): ComposeFile {
  return parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as ComposeFile;
}

/** The custom search attributes the compose production profile registers (prod-temporal-setup). */
export function productionSearchAttributes(compose: ComposeFile): string[] {
  return (compose.services['prod-temporal-setup']?.environment?.SEARCH_ATTRIBUTES ?? '').split(/\s+/).filter(Boolean);
}

/** The custom search attributes the default profile's dev server is started with. */
export function devSearchAttributes(compose: ComposeFile): string[] {
  const command = compose.services.temporal?.command ?? [];
  return command.flatMap((arg, i) => (command[i - 1] === '--search-attribute' ? [arg.replace(/=Keyword$/, '')] : []));
}
