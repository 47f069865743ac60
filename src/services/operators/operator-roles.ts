import type { DataSource } from 'typeorm';
import { notFound } from '../errors';

/** Who holds the operator role: granted and revoked by `npm run operators` (docs/sellers-operators.md). */
export class OperatorRoles {
  constructor(private readonly db: DataSource) {}

  async isOperator(userId: string): Promise<boolean> {
    const rows = await this.db.query(`SELECT 1 FROM operators WHERE user_id = $1`, [userId]);
    return rows.length > 0;
  }

  /** Grants the role to the user named by username or e-mail (the operators CLI). */
  async grant(user: string, grantedBy: string): Promise<{ userId: string; username: string }> {
    const found = await this.findUser(user);
    await this.db.query(`INSERT INTO operators (user_id, granted_by) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING`, [
      found.userId,
      grantedBy,
    ]);
    return found;
  }

  async revoke(user: string): Promise<{ userId: string; username: string }> {
    const found = await this.findUser(user);
    await this.db.query(`DELETE FROM operators WHERE user_id = $1`, [found.userId]);
    return found;
  }

  list(): Promise<Array<{ userId: string; username: string; grantedBy: string; grantedAt: Date }>> {
    return this.db.query(
      `SELECT o.user_id AS "userId", u.username, o.granted_by AS "grantedBy", o.granted_at AS "grantedAt"
         FROM operators o JOIN users u ON u.id = o.user_id ORDER BY o.granted_at`,
    );
  }

  private async findUser(user: string): Promise<{ userId: string; username: string }> {
    const [row] = await this.db.query(
      `SELECT id AS "userId", username FROM users WHERE lower(username) = lower($1) OR lower(email) = lower($1)`,
      [user],
    );
    if (!row) throw notFound(`User ${user}`);
    return row;
  }
}
