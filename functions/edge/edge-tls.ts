// An edge's RadSec files: the router CA and a server certificate it signed, issued by the operator's CLI.

import { getSecret } from '../core/secrets.js';

/**
 * An edge's RadSec files (docs/outage.md, "RadSec routers"): the router CA, and a server
 * certificate that CA signed, with its key. With them the edge's FreeRADIUS terminates a RadSec
 * router's TLS as the region's front does (the router checks the server against the CA its script
 * imported; the edge checks the router's certificate against the same CA), so RadSec routers list
 * the edge too. Issued by the operator's CLI (`edges add --tls-out`, `edges tls`), handed to the
 * installer (`--tls-dir`); no route hands them out.
 */
export const EDGE_CERT_DAYS = 825;

export async function issueEdgeTls(
  edgeId: string,
  nowMs: number,
): Promise<{ ca_pem: string; cert_pem: string; key_pem: string; not_after: string }> {
  const seed = await getSecret('ROUTER_CA_KEY');
  const { caCertificatePem, issueServerCertificate } = await import('../routers/ca.mjs');
  const cert = await issueServerCertificate(seed, `edge-${edgeId}`, nowMs, EDGE_CERT_DAYS);
  return {
    ca_pem: await caCertificatePem(seed),
    cert_pem: cert.certPem,
    key_pem: cert.keyPem,
    not_after: cert.notAfter,
  };
}
