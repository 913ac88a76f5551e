-- Projection: signing keys of external parties (registered by POST /v2/parties/external/allocate after the party's
-- signature over the onboarding multi-hash was verified). executeAndWait verifies submissions against these keys.
CREATE TABLE party_signing_keys (
  party_id     text    NOT NULL,
  fingerprint  text    NOT NULL,
  -- SIGNING_KEY_SPEC_EC_CURVE25519 | SIGNING_KEY_SPEC_EC_P256 | SIGNING_KEY_SPEC_EC_P384
  key_spec     text    NOT NULL,
  -- CRYPTO_KEY_FORMAT_RAW | CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO
  key_format   text    NOT NULL,
  -- base64 of the key bytes as registered
  public_key   text    NOT NULL,
  PRIMARY KEY (party_id, fingerprint)
);
-- The party's signature threshold (number of distinct valid signatures a submission needs).
CREATE TABLE party_signing_thresholds (
  party_id   text PRIMARY KEY,
  threshold  int  NOT NULL CHECK (threshold >= 1)
);
