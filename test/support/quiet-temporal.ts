import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';

// Worker state changes, expected activity retries and the SDK core's notices about the test
// server's version are noise in test output; errors still show.
const level = process.env.TEST_TEMPORAL_LOG_LEVEL === 'info' ? 'INFO' : 'ERROR';
try {
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} } },
  });
} catch {
  // Already installed in this worker process by an earlier test file.
}
