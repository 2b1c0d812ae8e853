/** The Node version the executables are built from (scripts/build-binary.mjs) and benchmarked on. */
export const NODE_VERSION = '26.10.0';
