import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'users' })
export class User {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  /** Stored as given; uniqueness is case-insensitive (index on lower(email)). */
  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text' })
  username: string;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash: string;

  @Column({ name: 'avatar_url', type: 'text', nullable: true })
  avatarUrl: string | null;

  @Column({ name: 'cover_url', type: 'text', nullable: true })
  coverUrl: string | null;

  /** Free-text public profile. */
  @Column({ type: 'text', nullable: true })
  profile: string | null;

  /** Review aggregates, updated in the same transaction as each review (rating = sum / count). */
  @Column({ name: 'reviews_count', type: 'integer' })
  reviewsCount: number;

  @Column({ name: 'rating_sum', type: 'integer' })
  ratingSum: number;

  @Column({ name: 'sales_count', type: 'integer' })
  salesCount: number;

  @Column({ name: 'purchases_count', type: 'integer' })
  purchasesCount: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
