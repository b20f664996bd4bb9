// Reads an HTML5 package back into its files (the share page serves them one by one), with yauzl. Bounded: the
// packages are ours, but a reader of zips should never trust entry sizes blindly.
import yauzl from 'yauzl';

const MAX_ENTRIES = 1000;

export function unzipPackage(zip: Uint8Array): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(zip), { lazyEntries: true, validateEntrySizes: true }, (error, file) => {
      if (error || !file) return reject(error ?? new Error('not a zip'));
      const files = new Map<string, Buffer>();
      file.on('entry', (entry: yauzl.Entry) => {
        if (files.size >= MAX_ENTRIES) return reject(new Error(`more than ${MAX_ENTRIES} entries`));
        file.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err ?? new Error(`cannot read ${entry.fileName}`));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks));
            file.readEntry();
          });
        });
      });
      file.on('end', () => resolve(files));
      file.on('error', reject);
      file.readEntry();
    });
  });
}
