internal import IntentsKit

/// UnicornChat's tables: accounts, contacts, groups and every user's mailbox.
enum MessagingSchema {
  static let migrations: [SchemaMigration] = [
    SchemaMigration(
      id: "messaging-1-initial",
      statements: [
        """
        CREATE TABLE messaging_accounts (
          user_id TEXT PRIMARY KEY,
          display_name TEXT NOT NULL,
          handle TEXT NOT NULL,
          signed_in INTEGER NOT NULL,
          service_enabled INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE messaging_contacts (
          user_id TEXT NOT NULL,
          contact_id TEXT NOT NULL,
          display_name TEXT NOT NULL,
          given_name TEXT NOT NULL,
          family_name TEXT NOT NULL,
          nickname TEXT NOT NULL,
          handle TEXT NOT NULL,
          has_account INTEGER NOT NULL,
          messaging_enabled INTEGER NOT NULL,
          PRIMARY KEY (user_id, contact_id)
        )
        """,
        """
        CREATE TABLE messaging_groups (
          user_id TEXT NOT NULL,
          group_id TEXT NOT NULL,
          name TEXT NOT NULL,
          PRIMARY KEY (user_id, group_id)
        )
        """,
        """
        CREATE TABLE messaging_messages (
          message_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          conversation_id TEXT NOT NULL,
          outgoing INTEGER NOT NULL,
          sender_id TEXT NOT NULL,
          recipient_ids TEXT NOT NULL,
          content TEXT NOT NULL,
          group_name TEXT NOT NULL,
          sent_at BIGINT NOT NULL,
          is_read INTEGER NOT NULL,
          is_flagged INTEGER NOT NULL,
          is_played INTEGER NOT NULL,
          message_type INTEGER NOT NULL,
          intent_identifier TEXT NOT NULL
        )
        """,
        "CREATE INDEX messaging_messages_by_user ON messaging_messages (user_id, sent_at)",
      ]),
    // The app side: users sign up with a handle of their own, and each address book holds a handle once.
    SchemaMigration(
      id: "messaging-2-handles",
      statements: [
        "CREATE UNIQUE INDEX messaging_accounts_by_handle ON messaging_accounts (LOWER(handle))",
        "CREATE UNIQUE INDEX messaging_contacts_by_handle ON messaging_contacts (user_id, LOWER(handle))",
      ]),
    // Handles a user blocks (lower case).
    SchemaMigration(
      id: "messaging-3-blocks",
      statements: [
        """
        CREATE TABLE messaging_blocks (
          user_id TEXT NOT NULL,
          handle TEXT NOT NULL,
          PRIMARY KEY (user_id, handle)
        )
        """
      ]),
    // Arrivals: each message delivered to a user takes the next number of their mailbox, so that a
    // live search (StartSendingUpdates) finds what arrived since it last looked, whatever the
    // messages' own times, on any replica.
    SchemaMigration(
      id: "messaging-4-arrivals",
      statements: [
        "ALTER TABLE messaging_accounts ADD COLUMN arrivals BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE messaging_messages ADD COLUMN arrival BIGINT NOT NULL DEFAULT 0",
        "CREATE INDEX messaging_messages_by_arrival ON messaging_messages (user_id, arrival)",
      ]),
    // Whether a contact is a user, and takes messages, is read from the accounts (and blocks), never
    // stored with the contact.
    SchemaMigration(
      id: "messaging-5-contacts-are-users",
      statements: [
        "ALTER TABLE messaging_contacts DROP COLUMN has_account",
        "ALTER TABLE messaging_contacts DROP COLUMN messaging_enabled",
      ]),
    // A contact is the user who held the handle when the contact was added, bound then: whoever signs
    // up with an unclaimed handle later receives nobody's messages (re-adding binds).
    SchemaMigration(
      id: "messaging-6-contact-binding",
      statements: [
        "ALTER TABLE messaging_contacts ADD COLUMN contact_user TEXT NOT NULL DEFAULT ''",
        """
        UPDATE messaging_contacts SET contact_user = COALESCE((
          SELECT a.user_id FROM messaging_accounts a WHERE LOWER(a.handle) = LOWER(messaging_contacts.handle)), '')
        """,
      ]),
  ]
}
