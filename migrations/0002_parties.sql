-- Parties and identity providers: projections of PartyAllocated / PartyDetailsUpdated and IdentityProvider* events.

-- Projection: participant-local party records. resource_version is compared-and-incremented by the projection's UPDATE
-- (… WHERE resource_version = <version the decision was made on>), so a stale write cannot succeed even in theory.
CREATE TABLE party_details (
  party                 text    PRIMARY KEY,
  is_local              boolean NOT NULL,
  identity_provider_id  text    NOT NULL DEFAULT '',
  annotations           jsonb   NOT NULL DEFAULT '{}',
  resource_version      bigint  NOT NULL DEFAULT 0,
  synchronizer_id       text    NOT NULL,
  allocated_seq         bigint  NOT NULL
);
CREATE INDEX party_details_idp_idx ON party_details (identity_provider_id, party);

-- Projection: identity provider configurations (tokens whose `iss` matches are verified with the provider's JWKS).
CREATE TABLE identity_providers (
  id              text    PRIMARY KEY,
  issuer          text    NOT NULL UNIQUE,
  jwks_url        text    NOT NULL,
  audience        text    NOT NULL DEFAULT '',
  is_deactivated  boolean NOT NULL DEFAULT false,
  created_seq     bigint  NOT NULL
);
