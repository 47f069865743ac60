import { DataSource } from 'typeorm';
import { SellerAccount } from '../db/entities';
import { prepared, queryPrepared } from '../db/prepared';
import { conflict } from './errors';

export interface SellerStatusView {
  userId: string;
  status: SellerAccount['status'];
  vacation: boolean;
  createdAt: Date;
}

const view = (s: SellerAccount): SellerStatusView => ({
  userId: s.userId,
  status: s.status,
  vacation: s.vacation,
  createdAt: s.createdAt,
});

export class Sellers {
  constructor(private readonly db: DataSource) {}

  /** Onboards the caller; a second call is a conflict rather than a silent no-op. */
  async onboard(userId: string): Promise<SellerStatusView> {
    const inserted = await this.db.query(
      `INSERT INTO seller_accounts (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING RETURNING user_id`,
      [userId],
    );
    if (inserted.length === 0) throw conflict('seller-exists', 'You already have a seller account.');
    return view(await this.db.getRepository(SellerAccount).findOneByOrFail({ userId }));
  }

  async find(userId: string): Promise<SellerStatusView | null> {
    const account = await this.db.getRepository(SellerAccount).findOneBy({ userId });
    return account ? view(account) : null;
  }

  /** Vacation hides every listing of the seller from buyers (see `LIVE_LISTING_SQL`) until turned off. */
  async setVacation(userId: string, enabled: boolean): Promise<SellerStatusView> {
    await this.db.getRepository(SellerAccount).update({ userId }, { vacation: enabled });
    return view(await this.db.getRepository(SellerAccount).findOneByOrFail({ userId }));
  }

  isActiveSeller(userId: string): Promise<boolean> {
    return isActiveSeller(this.db, userId);
  }
}

/** Whether the user has a seller account that is not suspended: asked on every request to a seller route. */
export async function isActiveSeller(db: DataSource, userId: string): Promise<boolean> {
  return (await queryPrepared(db, ACTIVE_SELLER, [userId])).length > 0;
}

const ACTIVE_SELLER = prepared('active-seller', `SELECT 1 FROM seller_accounts WHERE user_id = $1 AND status = 'ACTIVE'`);
