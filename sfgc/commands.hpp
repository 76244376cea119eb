// The sfgc sub-commands; main.cpp only dispatches on the first argument.
#pragma once

namespace sfgc {

// `sfgc FILE.sfg [--dot] [--view ...] [--svg OUT] [--png OUT] [--json] [--pnml OUT]`
int run_compile(int argc, char** argv);
// `sfgc trace FILE [--spec SPEC.sfg] [--analysis LIST] [--format text|json]` (docs/traces.md);
// argv[0] is "trace".
int run_trace(int argc, char** argv);
// `sfgc check FILE.sfg [--mode naive|dpor|random] [...]` (docs/programs.md); argv[0] is "check".
int run_check(int argc, char** argv);
// `sfgc infer TRACE... [--spec DECLS.sfg] [-o OUT.sfg] [--format sfg|json]` (docs/infer.md);
// argv[0] is "infer".
int run_infer(int argc, char** argv);
// `sfgc compress TRACE -o OUT.slp [--algorithm sequitur|repair]` (docs/compressed.md).
int run_compress(int argc, char** argv);
// `sfgc decompress IN.slp -o TRACE` (docs/compressed.md).
int run_decompress(int argc, char** argv);

} // namespace sfgc
