import { DataSource, QueryFailedError } from 'typeorm';
import { Listing, ListingAttachment, Upload } from '../../db/entities';
import { newId } from '../../ids';
import { conflict, invalid, notFound, type FieldError } from '../errors';
import { parseListingInput, type ListingInput } from './listing-input';
import type { OfferChangeStarts } from '../offers/offer-rows';
import { deleteListing, insertListings, replaceListing } from './listing-rows';
import { loadListingViews, toListingViews, type AttachmentView, type ListingView } from './listing-view';
import { SellerSearch, type SellerSearchOptions, type SellerSearchRequest } from './seller-search';

/** Most listings one bulk request may carry. */
export const MAX_BULK_LISTINGS = 100;
/** Most images one listing may carry. */
export const MAX_ATTACHMENTS = 10;

export type BulkResult =
  { index: number; status: 'created'; listing: ListingView } | { index: number; status: 'invalid'; errors: FieldError[] };

const OWN = { includePrivate: true };

/** A CHECK violation of the named constraint (e.g. quantity lowered below what checkouts hold). */
function checkViolation(err: unknown, constraint: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const e = err.driverError as { code?: string; constraint?: string };
  return e.code === '23514' && e.constraint === constraint;
}

/**
 * A seller's own listings: create (one or many), replace, delete, attach images. Every query
 * carries the seller id, so another seller's listing behaves exactly like a missing one.
 */
export class SellerListings {
  private readonly searcher: SellerSearch;

  constructor(
    private readonly db: DataSource,
    private readonly imageUrl: (imageId: string) => string,
    search: SellerSearchOptions,
    /** What a listing's change tells the open offers on it (src/modules/offers.ts). */
    private readonly offerChanges: OfferChangeStarts,
  ) {
    this.searcher = new SellerSearch(db, search);
  }

  async create(sellerId: string, input: ListingInput): Promise<ListingView> {
    const [written] = await this.db.transaction((tx) => insertListings(tx, sellerId, [{ input }]));
    return (await loadListingViews(this.db, [written!.id], OWN))[0]!;
  }

  /**
   * Per item: each element is validated on its own; the well-formed ones are created together
   * in one transaction (with one LISTING_CREATED each) and the others reported with their
   * field errors, in request order.
   */
  async createMany(sellerId: string, elements: unknown[]): Promise<BulkResult[]> {
    const parsed = elements.map((e, index) => ({ index, ...parseListingInput(e, { in: 'body', prefix: `listings.${index}` }) }));
    const accepted = parsed.filter((p): p is typeof p & { value: ListingInput } => p.value !== null);
    const written = await this.db.transaction((tx) =>
      insertListings(
        tx,
        sellerId,
        accepted.map((p) => ({ input: p.value })),
      ),
    );
    const views = await loadListingViews(
      this.db,
      written.map((w) => w.id),
      OWN,
    );
    const viewOfIndex = new Map(accepted.map((p, i) => [p.index, views[i]!]));
    return parsed.map((p): BulkResult =>
      p.errors
        ? { index: p.index, status: 'invalid', errors: p.errors }
        : { index: p.index, status: 'created', listing: viewOfIndex.get(p.index)! },
    );
  }

  search(sellerId: string, request: SellerSearchRequest): Promise<Buffer> {
    return this.searcher.search(sellerId, request);
  }

  async get(sellerId: string, id: string): Promise<ListingView> {
    const row = await this.db
      .getRepository(Listing)
      .createQueryBuilder('l')
      .where('l.id = :id AND l.seller_id = :sellerId AND l.deleted_at IS NULL', { id, sellerId })
      .getOne();
    if (!row) throw notFound('Listing');
    return (await toListingViews(this.db, [row], OWN))[0]!;
  }

  async update(sellerId: string, id: string, input: ListingInput): Promise<ListingView> {
    const written = await this.db
      .transaction((tx) => replaceListing(tx, sellerId, id, input, this.offerChanges))
      .catch((err: unknown) => {
        if (checkViolation(err, 'listings_reserved_within_quantity')) {
          throw conflict(
            'quantity-below-reserved',
            'Open checkouts hold more units of this listing than the new quantity; raise it or wait for them to finish.',
          );
        }
        throw err;
      });
    if (!written) throw notFound('Listing');
    return this.get(sellerId, id);
  }

  async delete(sellerId: string, id: string): Promise<void> {
    const outcome = await this.db.transaction((tx) => deleteListing(tx, sellerId, id, this.offerChanges));
    if (outcome === 'missing') throw notFound('Listing');
    if (outcome === 'locked')
      throw conflict('listing-locked', 'Open checkouts hold units of this listing; it can be deleted once they finish.');
  }

  /**
   * The seller's listings of one item that have stock (`quantity > 0`), cheapest first.
   * `available` mirrors `quantity` here (spec); `locked` still tells whether checkouts hold units.
   */
  async ofItem(sellerId: string, urn: string): Promise<ListingView[]> {
    const rows = await this.db
      .getRepository(Listing)
      .createQueryBuilder('l')
      .where('l.seller_id = :sellerId AND l.item_urn = :urn AND l.deleted_at IS NULL AND l.quantity > 0', { sellerId, urn })
      .orderBy('l.price', 'ASC')
      .addOrderBy('l.created_at', 'ASC')
      .getMany();
    const views = await toListingViews(this.db, rows, OWN);
    return views.map((v) => ({ ...v, available: v.quantity }));
  }

  /**
   * Step 2 of a direct upload: attaches a finished upload of the caller's to the caller's
   * listing. Unknown, unfinished or foreign uploads are 400; a foreign listing is 404.
   */
  async attach(sellerId: string, listingId: string, imageId: string): Promise<AttachmentView> {
    return this.db.transaction(async (tx) => {
      // Locks the listing so concurrent attachments get distinct positions and respect the cap.
      const owned = await tx.query(`SELECT id FROM listings WHERE id = $1 AND seller_id = $2 AND deleted_at IS NULL FOR UPDATE`, [
        listingId,
        sellerId,
      ]);
      if (owned.length === 0) throw notFound('Listing');
      // FOR SHARE: the upload collector deletes only rows it could lock, then re-checks that
      // nothing attached them meanwhile (listing attachments have no foreign key to lean on).
      const upload = await tx
        .getRepository(Upload)
        .createQueryBuilder('u')
        .where('u.id = :imageId AND u.owner_id = :sellerId AND u.status = :ready', { imageId, sellerId, ready: 'READY' })
        .setLock('pessimistic_read')
        .getOne();
      if (!upload) {
        throw invalid('upload-not-ready', 'The image is unknown, not yours, or its upload has not finished.', [
          { in: 'body', field: 'imageId', message: '"imageId" must name a finished upload of yours' },
        ]);
      }
      const count = await tx.getRepository(ListingAttachment).countBy({ listingId });
      if (count >= MAX_ATTACHMENTS) throw conflict('attachment-limit-reached', `A listing carries at most ${MAX_ATTACHMENTS} images.`);
      const attachment = { id: newId(), listingId, imageId, url: this.imageUrl(imageId), position: count };
      await tx.getRepository(ListingAttachment).insert(attachment);
      return { id: attachment.id, imageId, url: attachment.url };
    });
  }
}
