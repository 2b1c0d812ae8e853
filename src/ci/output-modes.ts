// How esign speaks to a CI runner (--ci-output, ESIGN_CI): the modes, named once for the flag's
// schema, its help and the decision (src/ci/github-actions.ts). A module of its own, with nothing
// to load: the command table names them for every command's help.
export const CI_OUTPUT_MODES = ['auto', 'github', 'none'] as const;
