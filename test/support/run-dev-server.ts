import { startDevServer, type DevServer } from './dev-server';
import { DEV_SERVER_ENV, TEST_DEV_SERVER_ARGS } from './temporal';

declare global {
  // Jest runs the global set-up and teardown in one process with one global object.
  var mtsRunDevServer: DevServer | undefined;
}

/**
 * Starts the run's Temporal dev server (Jest's global set-up) and hands its address to the test
 * workers, where `devServerEnv()` gives each test file a namespace of its own on it.
 */
export async function startRunDevServer(): Promise<void> {
  globalThis.mtsRunDevServer = await startDevServer({ args: TEST_DEV_SERVER_ARGS });
  process.env[DEV_SERVER_ENV] = globalThis.mtsRunDevServer.address;
}

/** Stops it (Jest's global teardown). */
export async function stopRunDevServer(): Promise<void> {
  await globalThis.mtsRunDevServer?.stop();
  globalThis.mtsRunDevServer = undefined;
}
