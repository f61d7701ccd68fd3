/** The part of the `radius` package (1.1.4, no published types) that the canary uses. */
declare module 'radius' {
  type AttributeValue = string | number | Buffer;
  interface EncodeArgs {
    code: string;
    secret: string;
    identifier?: number;
    authenticator?: Buffer;
    attributes?: [string, AttributeValue][] | Record<string, AttributeValue>;
    add_message_authenticator?: boolean;
  }
  interface Decoded {
    code: string;
    identifier: number;
    length: number;
    authenticator: Buffer;
    attributes: Record<string, unknown>;
    raw_attributes: [number, Buffer][];
  }
  const radius: {
    encode(args: EncodeArgs): Buffer;
    decode(args: { packet: Buffer; secret: string }): Decoded;
    decode_without_secret(args: { packet: Buffer }): Decoded;
    encode_response(args: {
      packet: Decoded;
      code: string;
      secret: string;
      attributes?: [string, AttributeValue][];
    }): Buffer;
  };
  export default radius;
}
