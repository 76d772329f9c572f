// gpuplan: the command-line front end of the core. Every command prints a human-readable
// report, or with --json one JSON object. Exit codes: 0 success, 1 the input was understood
// but is invalid (unknown model, impossible setup: the message says which field), 2 usage.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "cli.h"

namespace {

using gpuplan::Args;

const char* kUsage = R"(usage: gpuplan COMMAND [options]

commands:
  models [--json]                          list the model zoo
  estimate (--model ID | --hf-config FILE) [setup options] [hardware] [run length] [--json]
                                           parameters, FLOPs and peak memory per GPU; with
                                           hardware also step time, and with a run length, cost
  gpus [--json]                            the GPU catalog
  instances [--provider P] [--json]        cloud instances and prices
  plan (--model ID | --hf-config FILE) [setup options] run length [--deadline-hours H]
       [--budget-usd B] [--objective cost|time] [--pricing P] [--provider P] [--region R]
       [--compliance hipaa|gdpr|gov] [--min-gpu-memory-gb G] [--max-nodes N] [--top K] [--json]
                                           rank GPU/instance/parallelism choices
  validate FILE.csv [--json]               predict measured throughput (or peak-memory) rows; print
                                           errors and MAPE; rows it cannot predict are listed, skipped
  serve --model ID --rate R --prompt-tokens P --output-tokens O [--ttft-ms X] [--tpot-ms Y]
        [--load-curve FILE|R0,R1,...,R23|flat|business-hours|diurnal] [--tp N]
        [--gpu ID|auto | --instance ID|auto]
        [--runtime vllm|trtllm|sglang|hf] [--weights bf16|fp16|fp8|int8|int4] [--kv bf16|fp8]
        [--percentile 50|90|99] [--lengths fixed|sharegpt] [--requests N (simulated per rate)]
        [--min-replicas N] [--target-utilisation X] [--headroom X] [--start-s S (start to
        ready)] [--load-gb-per-s X (model load)] [--top K] [--provider P] [--region R] [--json]
                                           rank instances for serving: replicas, autoscaling, cost
  verify FILE [--json] [--trust KEY_B64]   check a gpuplan-probe file's signature, show its summary;
                                           exit 0 valid (signed by a --trust key if given), 1 invalid,
                                           unsigned or untrusted

  published [--json]                       every published measurement (data/published) with
                                           gpuplan's prediction and the error per row

setup options:
  --mode train|infer            --batch N (global)       --micro-batch N (per GPU)
  --seq N | --resolution N
  --precision fp32|tf32|fp16|bf16|amp-fp16|amp-bf16|mixed-fp16|mixed-bf16|fp8
                                amp-*: autocast over FP32 weights; mixed-*: 16-bit weights and
                                activations, FP32 masters (FSDP MixedPrecision, Megatron --bf16)
  --grad-reduce auto|fp32|bf16  gradient reduction of mixed-* (FSDP reduce_dtype)
  --optimizer sgd|sgd-momentum|adam|adamw|adam-8bit|adafactor|lamb
  --optimizer-loop foreach|for-loop (for-loop: one host iteration per tensor, PyTorch < 2.0)
  --clip-grad-norm (clip_grad_norm_ each step)
  --checkpointing none|selective|full|op-selective|every-k-layers [--checkpoint-every K]
  --attention auto|eager|flash  --dropout P (overrides the model's)
  --compile (torch.compile: fused non-matmul kernels)   --fused-loss (fused cross-entropy)
  --memory-format auto|nchw|channels-last (convolutions)
  --pytorch VERSION (e.g. 1.10: before 1.11 softmax and log_softmax also keep their input;
                    default: 1.11 or later)
  --dp N  --zero 0|1|2|3  --tp N  --sp  --pp N
  --ep N  --etp N (mixture of experts: experts sharded over ep of the dp x tp GPUs, each expert
                  split over etp; default etp = tp, as Megatron-Core)
  --capacity-factor X (0: dropless)  --moe-pad-to-capacity (pad each expert to it)
  --moe-imbalance X (busiest expert's tokens / even share; default 1.52, 1 = forced balance)
  --moe-dispatcher alltoall|deepep  --moe-a2a-overlap (Megatron's 1F1B all-to-all overlap)
  --lora-rank N  --qlora  --lora-targets q_proj,v_proj   --generate N (inference)
custom model (instead of --model):
  --custom transformer --c-layers N --c-hidden N --c-heads N --c-ffn N --c-vocab N
       [--c-name S --c-kv-heads N --c-head-dim N --c-max-positions N --c-gated 0|1 --c-tied 0|1
        --c-bias 0|1 --c-experts N --c-experts-per-token N]
  --custom cnn --cnn resnet|vgg|mobilenet_v2|yolov5 --cnn-classes N
       [--cnn-depth N (resnet, vgg) --cnn-width X (mobilenet_v2, yolov5)
        --cnn-depth-multiple X (yolov5)]

hardware:     --gpu ID [--gpus N] | --instance ID [--nodes N]   [--probe FILE] (calibrate with a
              probe file; a gpuplan-measure file is shown as measured vs predicted)
launch:       --emit torchrun|accelerate|deepspeed (estimate, or plan's top choice): print a runnable
              launch config with its FSDP/DDP or ZeRO settings instead of the report
run length:   --tokens N | --epochs N [--dataset-size N]
pricing:      --pricing on-demand|monthly|reserved-1y|reserved-3y|bulk|spot [--region R]
              [--currency usd|cny] [--reservation-utilisation X]
              --spot-interruptions-per-hour X | --spot-interruption-bucket B
              --checkpoint-interval-hours H --restart-hours H

exit codes: 0 success, 1 invalid input (the message names the field), 2 usage error
)";

// Flags that take no value.
const std::vector<std::string> kBooleanFlags = {"json",
                                                "sp",
                                                "qlora",
                                                "compile",
                                                "fused-loss",
                                                "clip-grad-norm",
                                                "moe-a2a-overlap",
                                                "moe-pad-to-capacity"};

// Splits "--key value" / "--key=value" / "--flag" arguments into Args.
gpuplan::Result<Args> parse_flags(int argc, char** argv, int first) {
  Args args;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a.size() < 3) {
      return gpuplan::make_error(gpuplan::Errc::invalid_argument,
                                 "unexpected argument '" + a + "'");
    }
    std::string key = a.substr(2);
    std::string value;
    const size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (std::find(kBooleanFlags.begin(), kBooleanFlags.end(), key) == kBooleanFlags.end()) {
      if (i + 1 >= argc) {
        return gpuplan::make_error(gpuplan::Errc::invalid_argument, "--" + key + " needs a value");
      }
      value = argv[++i];
    } else {
      value = "1";
    }
    args.emplace_back(key, value);
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? gpuplan::cli::kExitUsage : 0;
  }
  const std::map<std::string, int (*)(Args)> commands = {
      {"models", gpuplan::cli::cmd_models},       {"estimate", gpuplan::cli::cmd_estimate},
      {"verify", gpuplan::cli::cmd_verify},       {"gpus", gpuplan::cli::cmd_gpus},
      {"instances", gpuplan::cli::cmd_instances}, {"plan", gpuplan::cli::cmd_plan},
      {"validate", gpuplan::cli::cmd_validate},   {"serve", gpuplan::cli::cmd_serve},
      {"published", gpuplan::cli::cmd_published},
  };
  const std::string command = argv[1];
  auto it = commands.find(command);
  if (it == commands.end()) return gpuplan::cli::usage_error("unknown command '" + command + "'");
  // validate and verify take their file as a positional argument.
  int first = 2;
  std::string positional;
  if ((command == "validate" || command == "verify") && argc > 2 &&
      std::strncmp(argv[2], "--", 2) != 0) {
    positional = argv[2];
    first = 3;
  }
  auto args = parse_flags(argc, argv, first);
  if (args.ok() && !positional.empty()) args.value().emplace_back("file", positional);
  if (!args.ok()) return gpuplan::cli::usage_error(args.error().message);
  return it->second(args.value());
}
