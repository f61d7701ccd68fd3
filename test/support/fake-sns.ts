import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request SNS got: its headers and its form parameters. */
export interface SnsRequest {
  headers: IncomingHttpHeaders;
  body: string;
  params: URLSearchParams;
}

/**
 * A local SNS speaking its Query protocol: a form-encoded Publish in, the XML answer out (or the
 * error answers `fail` scripts, one per request). Point a client at it with `AWS_ENDPOINT_URL_SNS`.
 */
export async function fakeSns() {
  const requests: SnsRequest[] = [];
  const failures: { status: number; code: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      requests.push({ headers: req.headers, body, params: new URLSearchParams(body) });
      const failure = failures.shift();
      res.writeHead(failure?.status ?? 200, { 'content-type': 'text/xml' });
      res.end(
        failure
          ? `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>${failure.code}</Code><Message>scripted ${failure.code}</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`
          : '<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult>' +
              `<MessageId>m-${requests.length}</MessageId></PublishResult><ResponseMetadata><RequestId>r-1</RequestId>` +
              '</ResponseMetadata></PublishResponse>',
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    /** The next requests answer these errors, in order. */
    fail: (...next: { status: number; code: string }[]) => failures.push(...next),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
