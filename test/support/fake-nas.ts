/** The fake router of the Disconnect tests is the one `npm run fake-nas` runs (bin/local/fake-nas.ts). */
export {
  type FakeNas,
  type NasAnswer,
  type ReceivedDisconnect,
  startFakeNas,
} from '../../bin/local/fake-nas.js';
