// The one `envelope create` the network and transport tests send, and the token it goes with.
export const LIVE_TOKEN = 'tok_live_5f1c9a7e3b2d4c6a8e0f';
export const CREATE_ARGS: string[] = [
  'envelope',
  'create',
  '--template',
  '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
  '--name',
  'Ada Lovelace',
  '--email',
  'ada@example.com',
];
