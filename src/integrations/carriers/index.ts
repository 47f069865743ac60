import type { Carrier } from './port';
import { SimulatorCarrier } from './simulator';

export type { Carrier, TrackingReport, TrackingStatus } from './port';
export { TRACKING_STATUSES } from './port';

export interface CarrierConfig {
  /** The simulator's time in each status (CARRIER_SIMULATOR_STEP_SECONDS). */
  simulatorStepSeconds: number;
}

/** The carrier shipments are tracked with: the embedded simulator until a real one is wired. */
export function createCarrier(config: CarrierConfig): Carrier {
  return new SimulatorCarrier({ stepSeconds: config.simulatorStepSeconds });
}
