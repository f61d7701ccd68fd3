// `npm run fake-nas`: a router's Disconnect server on loopback, to try disconnects by hand.

/**
 * `npm run fake-nas -- [--port 3799] [--answer ack|silence|nak:<Error-Cause>] [--secret <s>]`: a
 * router's Disconnect endpoint (RFC 5176) on 127.0.0.1, for trying the Disconnect path of
 * `npm start` without a MikroTik. Prints each Disconnect-Request it gets and how it answered.
 */
import { parseFlags } from './admin/context.js';
import { type NasAnswer, startFakeNas } from './local/fake-nas.js';

const flags = parseFlags(process.argv.slice(2));
const port = Number(flags.port ?? 3799);
const secret = flags.secret ?? process.env.RADIUS_SECRET ?? 'testing123';
const given = flags.answer ?? 'ack';
const answer: NasAnswer =
  given === 'ack' || given === 'silence' ? given : { nak: Number(given.replace(/^nak:?/, '') || 506) };

const nas = await startFakeNas(secret, port);
// Called for requests whose authenticators check out with the secret; others get no answer.
nas.answer((r) => {
  process.stdout.write(
    `${new Date().toISOString()} ${r.code} from ${r.from.address}:${r.from.port} ` +
      `${JSON.stringify(r.attributes)} -> ${JSON.stringify(answer)}\n`,
  );
  return answer;
});
process.stdout.write(`fake NAS: Disconnect-Requests on udp 127.0.0.1:${nas.port}, answering ${given}\n`);
