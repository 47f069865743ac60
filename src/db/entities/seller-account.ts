import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A user's seller account; at most one per user, so the user id is the key. */
@Entity({ name: 'seller_accounts' })
export class SellerAccount {
  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  status: 'ACTIVE' | 'SUSPENDED';

  @Column({ type: 'boolean' })
  vacation: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
