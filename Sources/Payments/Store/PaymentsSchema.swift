internal import IntentsKit

/// UnicornPay's tables. Money is integer minor units. Every movement of money is a row in
/// `payments_movements` and two or more legs in `payments_legs` that sum to zero per currency; an
/// account's `balance_minor` is kept equal to the sum of its legs in the same transaction, and a
/// CHECK keeps user accounts within their overdraft (zero) or credit limit.
enum PaymentsSchema {
  static let migrations: [SchemaMigration] = [
    SchemaMigration(
      id: "payments-1-initial",
      statements: [
        """
        CREATE TABLE payments_profiles (
          user_id TEXT PRIMARY KEY,
          display_name TEXT NOT NULL,
          handle TEXT NOT NULL,
          home_currency TEXT NOT NULL,
          signed_in INTEGER NOT NULL,
          credentials_verified INTEGER NOT NULL,
          terms_accepted INTEGER NOT NULL,
          eligible INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE payments_accounts (
          account_id TEXT PRIMARY KEY,
          owner_id TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('user', 'system')),
          nickname TEXT NOT NULL,
          account_number TEXT NOT NULL,
          account_type INTEGER NOT NULL,
          organization_name TEXT NOT NULL,
          currency TEXT NOT NULL,
          balance_minor BIGINT NOT NULL,
          overdraft_limit_minor BIGINT NOT NULL CHECK (overdraft_limit_minor >= 0),
          is_default INTEGER NOT NULL,
          secondary_balance_type INTEGER NOT NULL,
          secondary_balance BIGINT NOT NULL,
          CHECK (kind = 'system' OR balance_minor + overdraft_limit_minor >= 0)
        )
        """,
        "CREATE INDEX payments_accounts_by_owner ON payments_accounts (owner_id)",
        """
        CREATE TABLE payments_movements (
          movement_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          intent_identifier TEXT NOT NULL,
          description TEXT NOT NULL,
          created_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE payments_legs (
          movement_id TEXT NOT NULL REFERENCES payments_movements (movement_id),
          position INTEGER NOT NULL,
          account_id TEXT NOT NULL REFERENCES payments_accounts (account_id),
          amount_minor BIGINT NOT NULL,
          currency TEXT NOT NULL,
          PRIMARY KEY (movement_id, position)
        )
        """,
        "CREATE INDEX payments_legs_by_account ON payments_legs (account_id)",
        """
        CREATE TABLE payments_contacts (
          user_id TEXT NOT NULL,
          contact_id TEXT NOT NULL,
          display_name TEXT NOT NULL,
          given_name TEXT NOT NULL,
          family_name TEXT NOT NULL,
          handle TEXT NOT NULL,
          has_account INTEGER NOT NULL,
          credentials_verified INTEGER NOT NULL,
          PRIMARY KEY (user_id, contact_id)
        )
        """,
        """
        CREATE TABLE payments_records (
          record_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          direction TEXT NOT NULL CHECK (direction IN ('send', 'request')),
          counterparty_id TEXT NOT NULL,
          account_id TEXT NOT NULL,
          amount_minor BIGINT NOT NULL,
          currency TEXT NOT NULL,
          fee_minor BIGINT NOT NULL,
          note TEXT NOT NULL,
          status INTEGER NOT NULL,
          movement_id TEXT NOT NULL,
          created_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE payments_bills (
          bill_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          payee_nickname TEXT NOT NULL,
          payee_organization TEXT NOT NULL,
          payee_account_number TEXT NOT NULL,
          bill_type INTEGER NOT NULL,
          status INTEGER NOT NULL,
          currency TEXT NOT NULL,
          amount_due_minor BIGINT NOT NULL,
          minimum_due_minor BIGINT NOT NULL,
          late_fee_minor BIGINT NOT NULL,
          due_date TEXT NOT NULL,
          payment_date TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE payments_scheduled (
          scheduled_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('transfer', 'bill')),
          from_account TEXT NOT NULL,
          to_account TEXT NOT NULL,
          bill_id TEXT NOT NULL,
          amount_minor BIGINT NOT NULL,
          currency TEXT NOT NULL,
          due_date TEXT NOT NULL,
          due_at BIGINT NOT NULL,
          status INTEGER NOT NULL,
          hold_movement_id TEXT NOT NULL,
          settle_movement_id TEXT NOT NULL
        )
        """,
        "CREATE INDEX payments_scheduled_due ON payments_scheduled (status, due_at)",
      ]),
    // Users pay users: a handle names one profile; a payee is a user when their handle is one (no
    // longer a flag of the contact); payments are recorded on both sides (a received payment is a
    // record of its own, linked to the sender's) with the other person's name and handle; a
    // request another user sent is one of the payer's bills.
    SchemaMigration(
      id: "payments-2-users",
      statements: [
        "CREATE UNIQUE INDEX payments_profiles_by_handle ON payments_profiles (LOWER(handle))",
        "ALTER TABLE payments_contacts DROP COLUMN has_account",
        "ALTER TABLE payments_contacts DROP COLUMN credentials_verified",
        "CREATE INDEX payments_contacts_by_handle ON payments_contacts (user_id, LOWER(handle))",
        """
        CREATE TABLE payments_records_2 (
          record_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          direction TEXT NOT NULL CHECK (direction IN ('send', 'receive', 'request')),
          counterparty_id TEXT NOT NULL,
          counterparty_user TEXT NOT NULL,
          counterparty_name TEXT NOT NULL,
          counterparty_handle TEXT NOT NULL,
          account_id TEXT NOT NULL,
          amount_minor BIGINT NOT NULL,
          currency TEXT NOT NULL,
          fee_minor BIGINT NOT NULL,
          note TEXT NOT NULL,
          status INTEGER NOT NULL,
          movement_id TEXT NOT NULL,
          linked_record TEXT NOT NULL,
          created_at BIGINT NOT NULL
        )
        """,
        """
        INSERT INTO payments_records_2
        SELECT r.record_id, r.user_id, r.direction, r.counterparty_id, '', COALESCE(c.display_name, ''),
               COALESCE(c.handle, ''), r.account_id, r.amount_minor, r.currency, r.fee_minor, r.note, r.status,
               r.movement_id, '', r.created_at
        FROM payments_records r
        LEFT JOIN payments_contacts c ON c.user_id = r.user_id AND c.contact_id = r.counterparty_id
        """,
        "DROP TABLE payments_records",
        "ALTER TABLE payments_records_2 RENAME TO payments_records",
        "CREATE INDEX payments_records_by_user ON payments_records (user_id, created_at)",
        "ALTER TABLE payments_bills ADD COLUMN request_id TEXT NOT NULL DEFAULT ''",
        "CREATE INDEX payments_bills_by_user ON payments_bills (user_id)",
      ]),
    // A payee is the user who held the handle when the payee was added, bound then: whoever signs
    // up with an unclaimed handle later does not become someone else's payee (re-adding binds).
    SchemaMigration(
      id: "payments-3-payee-binding",
      statements: [
        "ALTER TABLE payments_contacts ADD COLUMN payee_user TEXT NOT NULL DEFAULT ''",
        """
        UPDATE payments_contacts SET payee_user = COALESCE((
          SELECT p.user_id FROM payments_profiles p
          WHERE payments_contacts.handle <> '' AND LOWER(p.handle) = LOWER(payments_contacts.handle)), '')
        """,
      ]),
    // A user's accounts are read in nickname order on every payment (the payer's and the payee's, in
    // Confirm and again in Handle): in the index's order, not sorted in a temporary B-tree each time.
    SchemaMigration(
      id: "payments-4-accounts-in-nickname-order",
      statements: [
        "CREATE INDEX payments_accounts_by_owner_nickname ON payments_accounts (owner_id, kind, nickname)",
        "DROP INDEX payments_accounts_by_owner",
      ]),
    // Two records are written for every payment. SQLite checks `direction IN (three values)` by
    // building a temporary B-tree of the three on every insert (a list of two or fewer, or equality
    // tests joined by OR, it compares in place): ~40,000 instructions a payment, inside the write
    // lock. The same rule, written as comparisons; the table is made anew (SQLite cannot change a
    // CHECK), rows and index as they were.
    SchemaMigration(
      id: "payments-5-record-direction-compared",
      statements: [
        """
        CREATE TABLE payments_records_5 (
          record_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          direction TEXT NOT NULL CHECK (direction = 'send' OR direction = 'receive' OR direction = 'request'),
          counterparty_id TEXT NOT NULL,
          counterparty_user TEXT NOT NULL,
          counterparty_name TEXT NOT NULL,
          counterparty_handle TEXT NOT NULL,
          account_id TEXT NOT NULL,
          amount_minor BIGINT NOT NULL,
          currency TEXT NOT NULL,
          fee_minor BIGINT NOT NULL,
          note TEXT NOT NULL,
          status INTEGER NOT NULL,
          movement_id TEXT NOT NULL,
          linked_record TEXT NOT NULL,
          created_at BIGINT NOT NULL
        )
        """,
        """
        INSERT INTO payments_records_5 (
          record_id, user_id, direction, counterparty_id, counterparty_user, counterparty_name, counterparty_handle,
          account_id, amount_minor, currency, fee_minor, note, status, movement_id, linked_record, created_at)
        SELECT record_id, user_id, direction, counterparty_id, counterparty_user, counterparty_name, counterparty_handle,
               account_id, amount_minor, currency, fee_minor, note, status, movement_id, linked_record, created_at
        FROM payments_records
        """,
        "DROP TABLE payments_records",
        "ALTER TABLE payments_records_5 RENAME TO payments_records",
        "CREATE INDEX payments_records_by_user ON payments_records (user_id, created_at)",
      ]),
  ]
}
