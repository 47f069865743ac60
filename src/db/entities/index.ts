import { CatalogGame, CatalogItem, CatalogSeries, CatalogSet } from './catalog';
import { EmailChangeRequest } from './email-change-request';
import { EmailMessage } from './email-message';
import { ItemSale } from './item-sale';
import { Listing, ListingAttachment, ListingHold } from './listing';
import { OutboxEvent } from './outbox-event';
import { PersonalAccessToken } from './personal-access-token';
import { RefreshToken } from './refresh-token';
import { Review } from './review';
import { SellerAccount } from './seller-account';
import { DeliveryOption, ListingImport, Upload } from './seller-listings';
import { User } from './user';

export {
  CatalogGame,
  CatalogItem,
  CatalogSeries,
  CatalogSet,
  EmailChangeRequest,
  EmailMessage,
  ItemSale,
  Listing,
  ListingAttachment,
  ListingHold,
  OutboxEvent,
  PersonalAccessToken,
  RefreshToken,
  Review,
  SellerAccount,
  User,
  DeliveryOption,
  ListingImport,
  Upload,
};
export type { ItemImage, ItemMetadata } from './catalog';
export type { ImportStatus } from './seller-listings';

export const entities = [
  User,
  RefreshToken,
  PersonalAccessToken,
  SellerAccount,
  EmailChangeRequest,
  EmailMessage,
  CatalogGame,
  CatalogSeries,
  CatalogSet,
  CatalogItem,
  Listing,
  ListingAttachment,
  ListingHold,
  OutboxEvent,
  Upload,
  ListingImport,
  DeliveryOption,
  ItemSale,
  Review,
];
