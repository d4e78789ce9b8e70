# Sourced by the build scripts. Where HTTPS is intercepted (a CI sandbox), npm inside `podman build`
# needs the host's CA bundle, or `npm ci` prints "Exit handler never called!" and EXITS 0 with a
# partial node_modules. Mounted at build time only: nothing of it is baked into an image.
ci_npmrc=
CA_MOUNTS=()
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  ci_npmrc=$(mktemp)
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' >"$ci_npmrc"
  CA_MOUNTS=(-v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro
    -v "$ci_npmrc:/usr/local/etc/npmrc:ro")
fi
