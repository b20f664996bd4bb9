// The few plain lines a newcomer needs at start (issue 15): where the API and its docs are, and how to get a token.
// Printed once, before the JSON log lines, so the demo credential is not buried among them.
export interface BannerInput {
  publicUrl: string;
  /** Just created: the credential is shown once. */
  demo?: { clientId: string; clientSecret: string; file: string; email?: string; password?: string } | null;
  /** An earlier start's demo credential file, when there is one. */
  demoFile?: string | null;
}

export function startBanner({ publicUrl, demo, demoFile }: BannerInput): string {
  const tokenUrl = `${publicUrl}/v1/auth/token`;
  const lines = ['', `  Placard — API at ${publicUrl}/v1, docs at ${publicUrl}/docs`];
  if (demo) {
    if (demo.email && demo.password) {
      lines.push(`  Studio:       open ${publicUrl}/ and sign in as ${demo.email} with the password ${demo.password}`);
    }
    lines.push(
      `  Demo team created. API credential (shown once; it and the sign-in are written to ${demo.file}):`,
      `    clientId:     ${demo.clientId}`,
      `    clientSecret: ${demo.clientSecret}`,
      `  Get a token:  curl -s -X POST ${tokenUrl} -H 'Content-Type: application/json' ` +
        `-d '{"clientId":"${demo.clientId}","clientSecret":"${demo.clientSecret}"}'`,
    );
  } else if (demoFile) {
    lines.push(
      `  Studio:       open ${publicUrl}/ and sign in with the email and password in ${demoFile}`,
      `  Get a token:  curl -s -X POST ${tokenUrl} -H 'Content-Type: application/json' ` +
        `-d '{"clientId":"…","clientSecret":"…"}' (the demo credential is in ${demoFile})`,
    );
  } else {
    lines.push(
      '  Create a credential:  placard admin create-credential --email <you@example.com>',
      `  Get a token:  curl -s -X POST ${tokenUrl} -H 'Content-Type: application/json' -d '{"clientId":"…","clientSecret":"…"}'`,
    );
  }
  lines.push(`  Then:         curl -H 'Authorization: Bearer <token>' ${publicUrl}/v1/templates`, '', '');
  return lines.join('\n');
}
