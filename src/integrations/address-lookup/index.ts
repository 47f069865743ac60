import type { Config } from '../../config';
import { EmbeddedAddressLookup } from './embedded';
import { LoqateAddressLookup } from './loqate';
import type { AddressLookupProvider } from './port';

/** The configured provider: the bundled gazetteer by default, Loqate when configured. */
export function addressLookupProvider(config: Config['addressLookup']): AddressLookupProvider {
  if (config.provider === 'loqate') return new LoqateAddressLookup({ key: config.loqateKey!, baseUrl: config.loqateUrl });
  return new EmbeddedAddressLookup();
}
