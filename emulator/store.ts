/**
 * The emulator's state: one table per API collection, keyed by uid. Everything lives in memory for the
 * lifetime of one emulator; a restart starts from a fresh org.
 *
 * Objects are stored in the API's JSON shape (camelCase, RFC 3339 timestamps) so handlers return copies of
 * them without translation.
 */

/** Fields every stored object has. */
export interface Row {
  uid: string;
  createTime: string;
  [field: string]: unknown;
}

/** An IAM group (contract: iam Group). */
export interface GroupRow extends Row {
  name: string;
  description: string;
  updateTime: string;
}

/** An IAM identity; exactly one relationship field is set (claimMatch, staticKeys, awsIdentity, servicePrincipal). */
export interface IdentityRow extends Row {
  name: string;
  description: string;
  updateTime: string;
  claimMatch?: Record<string, unknown>;
}

/** An IAM role; built-ins have a single-segment uid. */
export interface RoleRow extends Row {
  name: string;
  description: string;
  capabilities: string[];
  updateTime: string;
}

/** A role binding as stored: the parent group is the uid's parent. Responses are hydrated from it. */
export interface RoleBindingRow extends Row {
  identityUid: string;
  roleUid: string;
}

/** A registry repo (read-only through the API; seeded at start). */
export interface RepoRow extends Row {
  name: string;
  description: string;
  updateTime: string;
}

/** A keyed table with insertion-independent reads. */
export class Table<T extends Row> {
  private readonly rows = new Map<string, T>();

  /** The row with this uid, or undefined. */
  get(uid: string): T | undefined {
    return this.rows.get(uid);
  }

  /** Inserts or replaces a row. */
  put(row: T): void {
    this.rows.set(row.uid, row);
  }

  /** Removes a row; returns whether it existed. */
  delete(uid: string): boolean {
    return this.rows.delete(uid);
  }

  /** Every row, in no particular order. */
  all(): T[] {
    return [...this.rows.values()];
  }

  /** Whether any row satisfies `pred`. */
  some(pred: (row: T) => boolean): boolean {
    for (const row of this.rows.values()) if (pred(row)) return true;
    return false;
  }

  /** Number of rows. */
  get size(): number {
    return this.rows.size;
  }
}

/** All collections of one emulated org. */
export class Store {
  readonly groups = new Table<GroupRow>();
  readonly identities = new Table<IdentityRow>();
  readonly roles = new Table<RoleRow>();
  readonly roleBindings = new Table<RoleBindingRow>();
  readonly repos = new Table<RepoRow>();
}
