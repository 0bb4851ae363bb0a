// An independent check of an evalkit bundle with sigstore-js (@sigstore/verify), as a third party runs it:
//   node sigstore_verify.js BUNDLE PUBLIC_KEY_PEM TRUSTED_ROOT_JSON TIMESTAMPS
// TIMESTAMPS: how many verified RFC 3161 timestamps are required (0 for a bundle without --tsa).
// Prints "verified" (exit 0) or the verifier's error (exit 1).
"use strict";
const fs = require("fs");
const crypto = require("crypto");
const { bundleFromJSON } = require("@sigstore/bundle");
const { TrustedRoot } = require("@sigstore/protobuf-specs");
const { toSignedEntity, toTrustMaterial, Verifier } = require("@sigstore/verify");

const [bundlePath, keyPath, rootPath, timestamps] = process.argv.slice(2);
try {
  const bundle = bundleFromJSON(JSON.parse(fs.readFileSync(bundlePath, "utf8")));
  const hint = bundle.verificationMaterial.content.publicKey.hint;
  const spki = crypto.createPublicKey(fs.readFileSync(keyPath)).export({ type: "spki", format: "der" });
  const keys = {
    [hint]: { rawBytes: spki, keyDetails: 5 /* PKIX_ECDSA_P256_SHA_256 */, validFor: { start: new Date(0) } },
  };
  const root = TrustedRoot.fromJSON(JSON.parse(fs.readFileSync(rootPath, "utf8")));
  const verifier = new Verifier(toTrustMaterial(root, keys), {
    tlogThreshold: 0,
    ctlogThreshold: 0,
    timestampThreshold: Number(timestamps),
  });
  verifier.verify(toSignedEntity(bundle));
  console.log("verified");
} catch (error) {
  console.log(`${error.code || error.name}: ${error.message}`);
  process.exit(1);
}
