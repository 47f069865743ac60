import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker state changes and expected activity retries are noise in test output; errors still show.
try {
  Runtime.install({ logger: new DefaultLogger(process.env.TEST_TEMPORAL_LOG_LEVEL === 'info' ? 'INFO' : 'ERROR') });
} catch {
  // Already installed in this worker process by an earlier test file.
}
