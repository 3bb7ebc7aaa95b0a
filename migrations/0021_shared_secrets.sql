-- Secrets every node of a cluster must share (issue 36): the built-in identity provider's and the tool endpoint's
-- signing keys. A single server keeps them in its data dir only; in cluster mode the first node to start stores
-- its keys here and every node signs and checks with the stored ones, so a session signed in through one node
-- is valid on all (a load balancer without stickiness sends each request anywhere).
CREATE TABLE IF NOT EXISTS shared_secrets (
  name text PRIMARY KEY,
  value jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
