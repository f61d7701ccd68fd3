// A radsecproxy configuration that plays a RadSec router.

/**
 * A radsecproxy (Debian's `radsecproxy`) configuration that plays a RadSec router: it takes
 * plain RADIUS over UDP on loopback (from radclient) and forwards it over TLS with the router's
 * client certificate to FreeRADIUS's RadSec listener, as RouterOS 7 does with
 * `protocol=radsec`. Used by `npm start`'s demo, the edge tests and the bench.
 */
export interface RadsecproxyOptions {
  /** UDP port radclient sends to (on 127.0.0.1). */
  listenPort: number;
  /** The secret between radclient and radsecproxy (loopback only). */
  secret: string;
  /** The router CA (it signed the server's certificate), the router's certificate and key files. */
  ca: string;
  cert: string;
  key: string;
  /** FreeRADIUS's RadSec port on 127.0.0.1. */
  serverPort: number;
  serverHost?: string;
}

export function radsecproxyConf(o: RadsecproxyOptions): string {
  return [
    `ListenUDP 127.0.0.1:${o.listenPort}`,
    '',
    'client radclient {',
    '    host 127.0.0.1',
    '    type udp',
    `    secret ${o.secret}`,
    '}',
    '',
    'tls router {',
    `    CACertificateFile ${o.ca}`,
    `    CertificateFile ${o.cert}`,
    `    CertificateKeyFile ${o.key}`,
    '}',
    '',
    'server front {',
    `    host ${o.serverHost ?? '127.0.0.1'}`,
    `    port ${o.serverPort}`,
    '    type tls',
    //  RFC 6614: the RADIUS secret over TLS is the fixed "radsec"; the certificates authenticate.
    '    secret radsec',
    '    tls router',
    //  The server is known by the router CA's signature, not by a name: RouterOS, too, checks
    //  the chain only, and the front is reached by address.
    '    CertificateNameCheck off',
    '}',
    '',
    'realm * {',
    '    server front',
    '    accountingServer front',
    '}',
    '',
  ].join('\n');
}
