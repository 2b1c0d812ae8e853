// A .zip holding one file, for the Windows archive: no zip tool needed on the build machine.
// The format is PKWARE's APPNOTE: a local header and the deflated data, then the central directory
// (one entry) and its end record. Sizes stay far below 4 GiB, so no Zip64.
import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

const DEFLATE = 8;
const VERSION_NEEDED = 20;
/** Made by Unix (3), so the entry can carry a mode: a regular file, rwxr-xr-x. */
const MADE_BY_UNIX = (3 << 8) | VERSION_NEEDED;
const UNIX_MODE = 0o100755;
/** 1980-01-01 00:00 in MS-DOS date and time: a fixed time keeps the archive reproducible. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
/** The same time in Unix seconds (UTC), for the .tar.gz archives (scripts/build-binary.mjs). */
export const FIXED_TIME = 315532800;

export function writeZip(file, name, data) {
  const nameBytes = Buffer.from(name, 'utf8');
  const compressed = deflateRawSync(data, { level: 9 });
  const crc = crc32(data);
  const common = (header) => {
    header.writeUInt16LE(0, 0); // flags
    header.writeUInt16LE(DEFLATE, 2);
    header.writeUInt16LE(0, 4); // time
    header.writeUInt16LE(DOS_DATE, 6);
    header.writeUInt32LE(crc, 8);
    header.writeUInt32LE(compressed.length, 12);
    header.writeUInt32LE(data.length, 16);
    header.writeUInt16LE(nameBytes.length, 20);
    header.writeUInt16LE(0, 22); // extra field length
    return header;
  };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(VERSION_NEEDED, 4);
  common(local.subarray(6));
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(MADE_BY_UNIX, 4);
  central.writeUInt16LE(VERSION_NEEDED, 6);
  common(central.subarray(8));
  // comment length, disk number, internal attributes: 0
  central.writeUInt32LE((UNIX_MODE << 16) >>> 0, 38);
  central.writeUInt32LE(0, 42); // offset of the local header
  const centralStart = local.length + nameBytes.length + compressed.length;
  const centralSize = central.length + nameBytes.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralStart, 16);
  writeFileSync(file, Buffer.concat([local, nameBytes, compressed, central, nameBytes, end]));
}
