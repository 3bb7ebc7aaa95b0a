-- Why each ranked match was paired (issue 33, part 4): the matchmaker's reason, the weight and its parts, each
-- fighter's wait, the rating window and the map's reason, as one JSON document (server/matchmaker/
-- pairing-record.ts). Null for human games and for matches stored before this column.
ALTER TABLE matches ADD COLUMN pairing jsonb;
