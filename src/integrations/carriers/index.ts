import { EasyPostCarrier } from './easypost';
import type { Carrier } from './port';
import { SimulatorCarrier } from './simulator';

export type { Carrier, TrackingReport, TrackingSource, TrackingStatus } from './port';
export { TRACKING_STATUSES } from './port';

export interface CarrierConfig {
  /** CARRIER_PROVIDER: the embedded simulator, or EasyPost's tracking API. */
  provider: 'simulator' | 'easypost';
  /** The simulator's time in each status (CARRIER_SIMULATOR_STEP_SECONDS). */
  simulatorStepSeconds: number;
  easypostApiKey?: string;
  easypostUrl: string;
}

/** The carrier shipments are tracked with: the embedded simulator by default, EasyPost when configured. */
export function createCarrier(config: CarrierConfig): Carrier {
  if (config.provider === 'easypost') return new EasyPostCarrier({ apiKey: config.easypostApiKey!, baseUrl: config.easypostUrl });
  return new SimulatorCarrier({ stepSeconds: config.simulatorStepSeconds });
}
