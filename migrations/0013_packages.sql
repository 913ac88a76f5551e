-- Packages: the Daml-LF archives of uploaded DARs and this participant's vetting of them; users' primary-party
-- authentication flag (PATCH /v2/users/{user-id}).

-- The archives' bytes (each ArchivePayload, whose SHA-256 is its package id) in chunks, so that a download streams them
-- and no single value holds a whole archive. Written once per package id, in the transaction of the PackagesUploaded
-- event that first names it, and never changed: the event's out-of-line content, not a projection (a rebuild keeps it).
CREATE TABLE package_archives (
  package_id  text    NOT NULL,
  chunk       integer NOT NULL,
  bytes       bytea   NOT NULL,
  PRIMARY KEY (package_id, chunk)
);

-- Projection: stored packages (PackagesUploaded).
CREATE TABLE packages (
  package_id       text   PRIMARY KEY,
  package_name     text   NOT NULL,
  package_version  text   NOT NULL,
  lf_version       text   NOT NULL,
  size_bytes       bigint NOT NULL,
  imports          text[],
  templates        text[],
  uploaded_at      text   NOT NULL,
  uploaded_seq     bigint NOT NULL
);
CREATE INDEX packages_name_idx ON packages (package_name);

-- Projection: per synchronizer, the packages this participant vets (PackageVettingChanged) and the change's serial.
CREATE TABLE package_vetting (
  synchronizer_id        text NOT NULL,
  package_id             text NOT NULL,
  valid_from_inclusive   text,
  valid_until_exclusive  text,
  PRIMARY KEY (synchronizer_id, package_id)
);
CREATE TABLE package_vetting_serials (
  synchronizer_id  text    PRIMARY KEY,
  serial           integer NOT NULL
);

ALTER TABLE users ADD COLUMN primary_party_authentication boolean NOT NULL DEFAULT false;
