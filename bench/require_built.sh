# Sourced by the benchmark scripts: require_built NAME TOOL... stops the
# script NAME (exit 1) when a tool it runs has not been built.
require_built() {
  local name=$1
  shift
  local tool
  for tool in "$@"; do
    if [ ! -x "$tool" ]; then
      echo "$name: $tool is missing; build it first (make build)" >&2
      exit 1
    fi
  done
}
