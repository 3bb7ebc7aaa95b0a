-- A ladder's window as staff moved it (PUT /api/admin/ladders/<id>/schedule): it outranks the manifest's
-- opens_at and closes_at, on this run and after a restart.
CREATE TABLE ladder_schedules (
  ladder_id text PRIMARY KEY,
  opens_at timestamptz,
  closes_at timestamptz,
  updated timestamptz NOT NULL DEFAULT now(),
  updated_by text NOT NULL
);
