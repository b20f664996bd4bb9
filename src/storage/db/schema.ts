// Row types of every table, as Kysely sees them. Timestamps are ISO 8601 UTC strings with milliseconds on both
// SQLite and PostgreSQL (they sort as text), booleans are 0/1 integers, JSON is text.
import type { ColumnType, Generated } from 'kysely';

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  created_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  team_id: number;
  name: string;
  email: string;
  role_id: number;
  profile_picture: string | null;
  created_at: string;
  updated_at: string;
  /** Users are kept after deletion so that "created by" still has a name; their credentials are deleted. */
  deleted_at: string | null;
}

export interface ApiCredentialsTable {
  id: Generated<number>;
  client_id: string;
  team_id: number;
  user_id: number;
  name: string;
  secret_hash: string;
  created_by: number | null;
  created_at: string;
  last_used_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface BrandKitsTable {
  id: Generated<number>;
  team_id: number;
  name: string;
  /** JSON array of typography entries (seed: fontId, fontName, fontSize, fontWeight, type). */
  typography: ColumnType<string, string | undefined, string>;
  /** JSON array of the kit's colours, {name, hex} (extension, migration 0018). */
  colors: ColumnType<string, string | undefined, string>;
  created_by: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  team_id: number;
  name: string;
  color: string;
  description: string | null;
  brand_kit_id: number;
  is_brand_kit_selectable: ColumnType<number, number | undefined, number>;
  created_by: number;
  created_at: string;
  updated_at: string;
}

/** Membership: Editors and Viewers see the projects they are users of (SPEC §2). */
export interface ProjectUsersTable {
  project_id: number;
  user_id: number;
  created_at: string;
}

export interface FoldersTable {
  id: Generated<number>;
  project_id: number;
  /** null at the root of the project. */
  parent_id: number | null;
  name: string;
  created_by: number;
  updated_by: number;
  created_at: string;
  updated_at: string;
}

export interface Database {
  teams: TeamsTable;
  users: UsersTable;
  api_credentials: ApiCredentialsTable;
  // events issue (migration 0003):
  webhooks: WebhooksTable;
  webhook_actions: WebhookActionsTable;
  team_signing_secrets: TeamSigningSecretsTable;
  events_outbox: EventsOutboxTable;
  ad_network_team_status: AdNetworkTeamStatusTable;
  brand_kits: BrandKitsTable;
  projects: ProjectsTable;
  project_users: ProjectUsersTable;
  folders: FoldersTable;
  // brand kit assets (migration 0005):
  media_folders: MediaFoldersTable;
  media_uploads: MediaUploadsTable;
  media: MediaTable;
  brand_fonts: BrandFontsTable;
  // templates issue (migration 0004):
  designs: DesignsTable;
  design_sizes: DesignSizesTable;
  design_versions: DesignVersionsTable;
  // export pipeline (migration 0006):
  jobs: JobsTable;
  exports: ExportsTable;
  export_creatives: ExportCreativesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  // HTML5 and share links (migration 0008):
  share_links: ShareLinksTable;
  user_passwords: UserPasswordsTable;
  sessions: SessionsTable;
  invites: InvitesTable;
  share_comments: ShareCommentsTable;
  // render URLs (migration 0016):
  render_url_secrets: RenderUrlSecretsTable;
  // batches (migration 0019):
  batches: BatchesTable;
  batch_rows: BatchRowsTable;
}

// ---- events issue (migration 0003): team webhooks, signing secrets, the event outbox, ad network status ----

export interface WebhooksTable {
  id: Generated<number>;
  team_id: number;
  name: string;
  url: string;
  created_by: number;
  created_at: string;
  updated_at: string;
}

/** The actions (src/events/catalogue.ts ids) a webhook subscribes to, with who added each and when. */
export interface WebhookActionsTable {
  webhook_id: number;
  action_id: number;
  created_by: number;
  created_at: string;
}

export interface TeamSigningSecretsTable {
  team_id: number;
  /** `whsec_` + base64 of 32 random bytes, as Standard Webhooks spells a secret. */
  secret: string;
  created_at: string;
}

/** One row per event (SPEC §8); a delivery worker reads the pending ones. */
export interface EventsOutboxTable {
  /** UUID, also the `id` of the payload. */
  id: string;
  team_id: number;
  action: string;
  /** JSON text of `{ id, action, teamId, occurredAt, data }`. */
  payload: string;
  occurred_at: string;
  status: ColumnType<string, string | undefined, string>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: string;
}

/** Only deviations from the default: a network without a row is enabled for the team. */
export interface AdNetworkTeamStatusTable {
  team_id: number;
  ad_network_id: number;
  /** 1 enabled, 0 disabled. */
  status: number;
}

// ---- templates issue (migration 0004): designs, their size hashes and versions ----

export interface DesignsTable {
  id: Generated<number>;
  /** The public id: 7 lowercase alphanumerics, unique across designs and size hashes. */
  hash: string;
  team_id: number;
  project_id: number;
  /** null at the root of the project. */
  folder_id: number | null;
  /** Always equal to the document's `name`. */
  name: string;
  is_template: number;
  api_generated: number;
  /** JSON text of the normalised design document (size hashes and kinds filled in). */
  document: string;
  /** Bumped on every change of the document; part of the export cache key. */
  revision: number;
  /** BlobStore key of the thumbnail PNG; null until one has been made. */
  thumb_key: string | null;
  created_by: number;
  updated_by: number;
  created_at: string;
  updated_at: string;
}

/** The hashes of the sizes of each design's current document, for lookups by size hash and service-wide uniqueness. */
export interface DesignSizesTable {
  hash: string;
  design_id: number;
  /** Index of the size in the document. */
  position: number;
}

export interface DesignVersionsTable {
  /** UUID v4. */
  id: string;
  design_id: number;
  /** 1, 2, 3… within a design: the order of versions, which timestamps alone cannot give when they tie. */
  number: number;
  version_name: string;
  /** JSON text of the whole document as it was. */
  document: string;
  size_hash: string;
  /** 1 when the service saved it (before a document replacement or a restore), 0 when a user did. */
  automatic: number;
  created_by: number;
  created_at: string;
  updated_at: string;
}

// ---- brand kit assets (migration 0005): media folders, upload requests, media (the asset processor's queue) ----

export interface MediaFoldersTable {
  id: Generated<number>;
  brand_kit_id: number;
  /** null at the root of the brand kit. */
  parent_id: number | null;
  name: string;
  created_by: number;
  created_at: string;
}

/** One upload request; `remaining` counts its assets still PROCESSING, the last to settle records the event. */
export interface MediaUploadsTable {
  id: string;
  team_id: number;
  brand_kit_id: number;
  remaining: number;
  created_by: number;
  created_at: string;
  completed_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MediaTable {
  id: Generated<number>;
  hash: string;
  team_id: number;
  brand_kit_id: number;
  media_folder_id: number | null;
  upload_id: string;
  name: string;
  file_name: string;
  /** The link the asset was uploaded from. */
  src: string;
  /** IMAGE | VIDEO | AUDIO, by content sniffing; null while PROCESSING. */
  type: string | null;
  format: string | null;
  size: number | null;
  width: number | null;
  height: number | null;
  /** Seconds. */
  duration: number | null;
  /** PROCESSING | VALID | INVALID | ERROR */
  status: string;
  error: string | null;
  /** Hex SHA-256 of the file. */
  checksum: string | null;
  blob_key: string | null;
  /** How many times a processor has claimed the row. */
  attempts: ColumnType<number, number | undefined, number>;
  /** A processor holds the row until then; null when nobody does. */
  lease_until: string | null;
  created_by: number;
  created_at: string;
  updated_at: string;
}

// ---- export pipeline (migration 0006): the embedded job queue, exports and their files, webhook deliveries ----

export interface JobsTable {
  /** Given by the caller (so that enqueueing twice is harmless) or a UUID. */
  id: string;
  kind: string;
  /** JSON text of the typed payload of the kind (jobs/job-queue.ts). */
  payload: string;
  /** queued | running | done | failed */
  status: string;
  /** Claims so far, including the current one. */
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: number;
  /** JSON array of ms to wait before the 2nd, 3rd… attempt; the last value repeats. */
  retry_delays: string;
  run_at: string;
  lease_until: string | null;
  /** The queue instance (process) holding the lease. */
  locked_by: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** The group (team) whose turn the job waits for (migration 0010); null: claimed before any group's. */
  fair_group: ColumnType<string | null, string | null | undefined, string | null>;
  /** Claim order across groups (migration 0010, jobs/fair-order.ts). */
  fair_key: ColumnType<number, number | undefined, number>;
  /** Enqueue order (migration 0017): breaks ties of fair key and due time. */
  seq: ColumnType<number, number | undefined, number>;
}

export interface ExportsTable {
  /** UUID v4. */
  id: string;
  team_id: number;
  project_id: number;
  design_id: number;
  design_hash: string;
  /** The design an export with changes created; null for POST /v1/export. */
  new_design_hash: string | null;
  created_by: number;
  /** As requested (the `type` of the answer). */
  type: string;
  /** Normalised: png jpg webp pdf gif mp4 html. */
  format: string;
  /** pending | complete | completeWithError | failed; inProgress in rows of earlier versions (issue 21: no longer written) */
  status: string;
  /** JSON text of the export settings, defaults filled in. */
  settings: string;
  /** JSON text of the design document rendered (changes applied). */
  document: string;
  file_stem: string;
  /** 1 when the design is a set (several sizes): the answer is one set entry with a zip. */
  is_set: number;
  webhook_url: string | null;
  /** SHA-256 of the canonical request and the template revision; null when the export may not be cached. */
  cache_key: string | null;
  /** JSON text of the errorLog; null while nothing failed. */
  error_log: string | null;
  zip_key: string | null;
  zip_name: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface ExportCreativesTable {
  /** UUID v4. */
  id: string;
  export_id: string;
  /** Order in the answer. */
  position: number;
  size_index: number;
  size_hash: string;
  size_name: string;
  width: number;
  height: number;
  slide_number: number | null;
  file_name: string;
  status: string;
  blob_key: string | null;
  bytes: number | null;
  error_code: string | null;
  error_message: string | null;
  render_ms: number | null;
  /** 0..1 while the file is made (migration 0007); 1 once settled. */
  progress: ColumnType<number, number | undefined, number>;
  /** JSON array of the validator's advice (migration 0008); null when there is none. */
  warnings: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON array of preflight findings (issue 20); null: none, or preflight off. */
  findings: ColumnType<string | null, string | null | undefined, string | null>;
  /** The backup JPG delivered beside an HTML5 zip (migration 0008). */
  fallback_key: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: string;
  updated_at: string;
}

export interface ShareLinksTable {
  token: string;
  team_id: number;
  design_hash: string;
  preview_id: string | null;
  /** The changed document of a generated preview (JSON); null for a design's stable link. */
  document: string | null;
  created_by: number | null;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  /** UUID v4: the payload `id` and the webhook-id header. */
  id: string;
  team_id: number;
  /** null for the webhookUrl of an export request, or once the webhook is deleted. */
  webhook_id: number | null;
  /** The outbox event it delivers (team webhooks). */
  event_id: string | null;
  /** The export whose webhookUrl it calls. */
  export_id: string | null;
  action: string;
  url: string;
  /** JSON text POSTed as is, `{ id, action, teamId, occurredAt, data }`. */
  payload: string;
  /** pending | succeeded | failed | cancelled (its webhook was deleted or given another URL) */
  status: string;
  attempt_count: ColumnType<number, number | undefined, number>;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  /**
   * The last attempt (migration 0021), set by the UPDATE that counts it; on SQLite a trigger copies it into
   * webhook_delivery_attempts in that statement.
   */
  last_attempted_at: ColumnType<string | null, string | null | undefined, string | null>;
  last_status_code: ColumnType<number | null, number | null | undefined, number | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  last_duration_ms: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface WebhookDeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

// ---- brand fonts (migration 0012): one row per uploaded face ----

export interface BrandFontsTable {
  /** The seed's typography `fontId`. */
  id: Generated<number>;
  team_id: number;
  brand_kit_id: number;
  family: string;
  /** lower(family). */
  family_key: string;
  /** `400`, `700italic`: the seed's FONTVARIANT spelling. */
  variant: string;
  /** normal | italic */
  style: string;
  weight: number;
  /** ttf | otf | woff | woff2 (of the uploaded file; a collection's face is stored as ttf or otf). */
  format: string;
  glyph_count: number;
  file_name: string;
  postscript_name: string | null;
  /** 1 when OS/2 fsType allows embedding a subset in a PDF or an HTML5 package. */
  embeddable: number;
  fs_type: number;
  /** JSON object of axis tag → value (a variable font's named instance); null for a static face. */
  variation: string | null;
  blob_key: string;
  /** Hex SHA-256 of the stored file. */
  checksum: string;
  size: number;
  src: string | null;
  created_by: number;
  created_at: string;
}

// The studio (migration 0013).
export interface UserPasswordsTable {
  user_id: number;
  password_hash: string;
  updated_at: string;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the cookie's token: a database leak hands out no session. */
  token_hash: string;
  user_id: number;
  team_id: number;
  /** The role at sign-in: a role change ends the session. */
  role_id: number;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
}

export interface InvitesTable {
  token_hash: string;
  team_id: number;
  user_id: number;
  created_by: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ShareCommentsTable {
  id: string;
  share_token: string;
  team_id: number;
  design_hash: string;
  parent_id: string | null;
  /** comment | approve | changes */
  kind: string;
  author: string;
  text: string;
  size_hash: string | null;
  x: number | null;
  y: number | null;
  resolved: number;
  created_at: string;
}

// ---- render URLs (migration 0016) ----

/** The secret that signs a team's render URLs; sealed with storage/secrets.ts (never stored readable). */
export interface RenderUrlSecretsTable {
  team_id: number;
  secret_sealed: string;
  created_at: string;
  /** The secret before the last rotation, accepted until `previous_valid_until`. */
  previous_sealed: string | null;
  previous_valid_until: string | null;
}

// ---- batches (migration 0019, issue 22) ----

export interface BatchesTable {
  id: Generated<number>;
  team_id: number;
  project_id: number;
  design_id: number;
  design_hash: string;
  design_revision: number;
  /** JSON text of the template's document at submit: the batch renders it even if the template changes. */
  document: string;
  created_by: number;
  /** As requested, and normalised (png jpg …). */
  type: string;
  format: string;
  /** JSON text of the export settings, defaults filled in. */
  settings: string;
  /** JSON array of the size indexes rendered. */
  sizes: string;
  /** JSON text of generalSettings (createDesigns' project, folder, name). */
  general_settings: string;
  /** JSON array of {elementName, attribute, value} templates. */
  mapping: string;
  /** JSON array of the columns of the rows. */
  columns: string;
  /** rows | csv | file | feed */
  source: string;
  row_key: string | null;
  /** render | skip | fail */
  on_findings: string;
  create_designs: number;
  webhook_url: string | null;
  notify_row_failures: number;
  naming: string | null;
  /** pending | running | complete | completeWithError | failed | cancelled */
  status: string;
  row_count: number;
  generation: number;
  zip_key: string | null;
  results_key: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface BatchRowsTable {
  id: Generated<number>;
  batch_id: number;
  /** 0-based position of the row in the input. */
  idx: number;
  key: string;
  line: number | null;
  /** JSON object of the row's values (column → text). */
  row_values: string;
  /** JSON array of element changes; null when mapping the row's values failed. */
  changes: string | null;
  cache_key: string | null;
  /** pending | running | succeeded | failed | skipped | cancelled */
  status: string;
  attempts: number;
  findings: string | null;
  files: string | null;
  cached: number;
  /** The design the row created (createDesigns). */
  design_hash: ColumnType<string | null, string | null | undefined, string | null>;
  error_code: string | null;
  error_message: string | null;
  updated_at: string;
}
