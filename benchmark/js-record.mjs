// ─── docs/record-format.md, written out with node:crypto and nothing else ────
// The plain-JS reading of the sealed record format: the record specs decrypt the engine's records with it, and the
// seal benchmark times it as the baseline. Keep it a literal transcription of the spec file.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Plaintext bytes per chunk, by record version: the engine writes version 2 and still opens version 1. */
export const CHUNK_BY_VERSION = { 1: 65_536, 2: 16_384 };
export const VERSION = 2;
export const CHUNK = CHUNK_BY_VERSION[VERSION];
export const HEADER = 20;
export const TAG = 16;

/** HKDF info labels of an answer record and of its path index record. */
export const RECORD_LABELS = { record: 'result-handles/v1 record key', storage: 'result-handles/v1 storage key' };
export const INDEX_LABELS = { record: 'result-handles/v1 index key', storage: 'result-handles/v1 index storage key' };

/** One HKDF input field: `0x00` when absent, else `0x01 ‖ u32 length ‖ UTF-8`. */
export function field(value) {
  if (value === undefined) return Buffer.from([0]);
  const bytes = Buffer.from(value, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([Buffer.from([1]), length, bytes]);
}

/**
 * The AES-256 key and the storage key of a handle for an owner.
 *
 * @example
 * const keys = deriveKeys(handle, session, subject); // keys.storageKey.toString('hex') is the store key
 */
export function deriveKeys(handle, session, subject, secret, labels = RECORD_LABELS) {
  const ikm = Buffer.concat([field(handle), field(session), field(subject)]);
  const salt = secret === undefined ? Buffer.alloc(0) : Buffer.from(secret, 'utf8');
  const key = (info) => Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from(info, 'ascii'), 32));
  return { recordKey: key(labels.record), storageKey: key(labels.storage) };
}

/** Chunk nonce: the record's 7-byte prefix ‖ u32 chunk index ‖ last-chunk flag. */
export function nonce(prefix, index, last) {
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(index);
  return Buffer.concat([prefix, counter, Buffer.from([last ? 1 : 0])]);
}

/** Opens a version 1 or 2 record; throws on a foreign magic, another version, a bad length or a failed tag. */
export function jsOpen(record, keys) {
  if (record.subarray(0, 4).toString('latin1') !== 'RHSR') throw new Error('not a record');
  const CHUNK = CHUNK_BY_VERSION[record[4]];
  if (CHUNK === undefined) throw new Error(`unknown version ${record[4]}`);
  const header = record.subarray(0, HEADER);
  const prefix = record.subarray(5, 12);
  const length = Number(record.readBigUInt64BE(12));
  const chunks = Math.max(1, Math.ceil(length / CHUNK));
  if (record.length !== HEADER + length + TAG * chunks) throw new Error('bad length');
  const aad = Buffer.concat([header, keys.storageKey]);
  const out = [];
  let at = HEADER;
  for (let i = 0; i < chunks; i += 1) {
    const last = i === chunks - 1;
    const size = last ? length - i * CHUNK : CHUNK;
    const decipher = createDecipheriv('aes-256-gcm', keys.recordKey, nonce(prefix, i, last));
    decipher.setAAD(aad);
    decipher.setAuthTag(record.subarray(at + size, at + size + TAG));
    out.push(decipher.update(record.subarray(at, at + size)), decipher.final());
    at += size + TAG;
  }
  return Buffer.concat(out);
}

/** Seals `plaintext` as a record of `version` (2 unless told) under `keys`, with a fresh random nonce prefix. */
export function jsSeal(plaintext, keys, version = VERSION) {
  const CHUNK = CHUNK_BY_VERSION[version];
  const prefix = randomBytes(7);
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(plaintext.length));
  const header = Buffer.concat([Buffer.from('RHSR', 'latin1'), Buffer.from([version]), prefix, length]);
  const aad = Buffer.concat([header, keys.storageKey]);
  const chunks = Math.max(1, Math.ceil(plaintext.length / CHUNK));
  const parts = [header];
  for (let i = 0; i < chunks; i += 1) {
    const cipher = createCipheriv('aes-256-gcm', keys.recordKey, nonce(prefix, i, i === chunks - 1));
    cipher.setAAD(aad);
    parts.push(cipher.update(plaintext.subarray(i * CHUNK, (i + 1) * CHUNK)), cipher.final(), cipher.getAuthTag());
  }
  return Buffer.concat(parts);
}
