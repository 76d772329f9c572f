#pragma once
// `gpuplan-probe sign FILE [--key KEY] [--out OUT]`: signs a payload another tool wrote (a
// gpuplan-measure model run, or a probe payload) with the probe's key, into the probe's DSSE
// envelope, so `gpuplan verify` and the page check it like a probe file.

namespace gpuplan::probe {

// Runs the subcommand on the arguments after "sign"; returns the exit code (0 signed, 2 usage,
// 4 key or file problem, 1 the payload is not one gpuplan reads).
int run_sign_command(int argc, char** argv);

}  // namespace gpuplan::probe
