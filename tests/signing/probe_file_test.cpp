// Probe files: the signing library's base64, SHA-256 and Ed25519 (libsodium: Debian's natively,
// the source subset in WebAssembly), DSSE and read_probe_file's verdicts. Runs natively and under
// node.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"

namespace gpuplan {
namespace {

using nlohmann::json;

std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out += char(std::stoi(h.substr(i, 2), nullptr, 16));
  return out;
}

// A complete, minimal payload (the probe writes many more result rows).
std::string payload(int schema_version = 1,
                    const std::string& summary_extra = R"(, "p2p_bytes_per_s": null)") {
  return R"({"schema_version": )" + std::to_string(schema_version) + R"J(, "kind": "gpuplan-probe",
  "tool": {"name": "gpuplan-probe", "version": "0.1.0", "git_revision": "abc1234"},
  "simulated": false, "started_utc": "2026-01-01T00:00:00Z", "finished_utc": "2026-01-01T00:00:20Z",
  "arguments": ["--quick"], "environment": {"CUDA_VISIBLE_DEVICES": "0"},
  "host": {"hostname": "h", "os": "Linux", "cpu_model": "x", "cpus": 8, "memory_bytes": 1000,
           "cloud": {"provider": "aws", "instance_type": "p5.48xlarge", "region": "us-east-1"}},
  "software": {"driver_version": "580.65.06", "cuda_driver": 13000, "cuda_runtime": 13000, "cublas": 130100, "nccl": null},
  "nodes": [{"node": 0, "first_gpu": 0, "gpu_count": 1, "host": {}, "software": {}}],
  "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3"}], "topology": {"peer_access": [[false]]},
  "results": [
    {"case": "gemm_bf16", "gpu": 0, "node": 0, "status": "passed", "reason": null, "params": {"n": 8192}, "unit": "flop_per_s",
     "median": 7.421e14, "min": 7.31e14, "max": 7.489e14, "n": 50, "clocks": null, "error": null},
    {"case": "nccl_allreduce", "gpu": null, "node": 0, "status": "waived", "reason": "needs 2 or more GPUs (found 1)",
     "params": {}, "unit": null, "median": null, "min": null, "max": null, "n": 0, "clocks": null, "error": null}],
  "warnings": ["one warning"],
  "summary": {"gpu_name": "NVIDIA H100 80GB HBM3", "catalog_gpu_id": "h100-sxm5-80gb", "gpu_count": 1, "node_count": 1,
    "slowest_gpu": 0, "gemm_flop_per_s": {"fp64": null, "fp32": 5.0e13, "tf32": null, "fp16": null, "bf16": 7.421e14, "fp8": null},
    "hbm_copy_bytes_per_s": 2.9e12, "hbm_triad_bytes_per_s": 2.95e12, "h2d_pinned_bytes_per_s": 5.3e10,
    "d2h_pinned_bytes_per_s": 5.4e10)J" +
         summary_extra + R"(, "allreduce_busbw_bytes_per_s": null,
    "memory_bytes": 85520809984}}
)";
}

signing::KeyPair key(char fill) {
  return signing::keypair_from_seed(std::string(32, fill));
}

Result<ProbeFile> read(const std::string& text, const std::vector<std::string>& trusted = {}) {
  return signing::read_probe_file(text, trusted);
}

// Edits the envelope's JSON and returns it as text.
template <class F>
std::string edit(const std::string& envelope, F&& f) {
  json j = json::parse(envelope);
  f(j);
  return j.dump();
}

TEST(Base64, EncodesTheRfc4648Vectors) {
  const std::pair<const char*, const char*> v[] = {{"", ""},
                                                   {"f", "Zg=="},
                                                   {"fo", "Zm8="},
                                                   {"foo", "Zm9v"},
                                                   {"foob", "Zm9vYg=="},
                                                   {"fooba", "Zm9vYmE="},
                                                   {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, b64] : v) {
    EXPECT_EQ(signing::base64_encode(plain), b64);
    EXPECT_EQ(signing::base64_decode(b64).value_or("?"), plain);
  }
}

TEST(Base64, DecodesOnlyCanonicalPaddedText) {
  for (const char* bad : {"Zg", "Zg=", "Zh==", "Z===", "Zm9v\n", "Zm=v", "Zm9vYg=a",
                          "Zg==Zg==", "Zm9*", "\x85\x82\x84\x88", "Zm9\xe9"}) {
    EXPECT_FALSE(signing::base64_decode(bad)) << bad;
  }
  std::string all;
  for (int i = 0; i < 256; ++i) all += char(i);
  EXPECT_EQ(signing::base64_decode(signing::base64_encode(all)).value_or(""), all);
}

TEST(Sha256, MatchesTheFips180Vectors) {
  EXPECT_EQ(hex_encode(signing::sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex_encode(signing::sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex_encode(signing::sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex_encode(signing::sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Dsse, PreAuthenticationEncodingMatchesTheSpecExample) {
  EXPECT_EQ(dsse_pae("http://example.com/HelloWorld", "hello world"),
            "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
}

TEST(Ed25519, ReproducesRfc8032Test2) {
  const auto k = signing::keypair_from_seed(
      unhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"));
  EXPECT_EQ(hex_encode(k.public_key),
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
  const std::string sig = signing::sign_detached(unhex("72"), k.secret_key);
  EXPECT_EQ(hex_encode(sig),
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
            "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00");
  EXPECT_TRUE(signing::verify_detached(unhex("72"), sig, k.public_key));
  EXPECT_FALSE(signing::verify_detached(unhex("73"), sig, k.public_key));
}

TEST(ProbeFile, SignedFileVerifiesAndItsSummaryIsRead) {
  const auto k = key('a');
  auto f = read(signing::sign_probe_payload(payload(), k));
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::valid);
  EXPECT_EQ(f.value().reason, "");
  EXPECT_EQ(f.value().key_id, signing::key_id(k.public_key));
  EXPECT_EQ(f.value().key_id.size(), 32u);
  EXPECT_EQ(f.value().fingerprint.rfind("SHA256:", 0), 0u);
  EXPECT_FALSE(f.value().trusted);
  EXPECT_EQ(f.value().payload_bytes, payload());
  ASSERT_TRUE(f.value().payload);
  const ProbePayload& p = *f.value().payload;
  EXPECT_FALSE(p.simulated);
  EXPECT_EQ(p.cloud_instance_type.value_or(""), "p5.48xlarge");
  EXPECT_EQ(p.results_passed, 1);
  EXPECT_EQ(p.results_waived, 1);
  EXPECT_EQ(p.summary.catalog_gpu_id.value_or(""), "h100-sxm5-80gb");
  EXPECT_DOUBLE_EQ(p.summary.gemm_flop_per_s.bf16.value_or(0), 7.421e14);
  EXPECT_FALSE(p.summary.gemm_flop_per_s.fp8);
  EXPECT_FALSE(p.summary.p2p_bytes_per_s);
  EXPECT_EQ(p.summary.memory_bytes, 85520809984);
}

TEST(ProbeFile, OnlyAPinnedKeyIsTrusted) {
  const auto k = key('a');
  const std::string file = signing::sign_probe_payload(payload(), k);
  EXPECT_TRUE(read(file, {signing::base64_encode(k.public_key)}).value().trusted);
  EXPECT_FALSE(read(file, {signing::base64_encode(key('b').public_key)}).value().trusted);
}

TEST(ProbeFile, FlippedPayloadByteIsInvalid) {
  const std::string file = edit(signing::sign_probe_payload(payload(), key('a')), [](json& j) {
    std::string p = *signing::base64_decode(j["payload"].get<std::string>());
    p[p.find("7.421e14")] = '9';  // a better GEMM figure than measured
    j["payload"] = signing::base64_encode(p);
  });
  auto f = read(file);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::invalid);
  EXPECT_NE(f.value().reason.find("does not verify"), std::string::npos) << f.value().reason;
  EXPECT_FALSE(f.value().payload);
}

TEST(ProbeFile, FlippedSignatureByteIsInvalid) {
  const std::string file = edit(signing::sign_probe_payload(payload(), key('a')), [](json& j) {
    std::string sig = *signing::base64_decode(j["signatures"][0]["sig"].get<std::string>());
    sig[10] = char(sig[10] ^ 1);
    j["signatures"][0]["sig"] = signing::base64_encode(sig);
  });
  EXPECT_EQ(read(file).value().signature, ProbeSignature::invalid);
}

TEST(ProbeFile, SwappedPublicKeyIsInvalid) {
  const auto other = key('b');
  const std::string file = edit(signing::sign_probe_payload(payload(), key('a')), [&](json& j) {
    j["signatures"][0]["public_key"] = signing::base64_encode(other.public_key);
    j["signatures"][0]["keyid"] = signing::key_id(other.public_key);
  });
  auto f = read(file, {signing::base64_encode(other.public_key)});
  EXPECT_EQ(f.value().signature, ProbeSignature::invalid);
  EXPECT_FALSE(f.value().trusted);
}

TEST(ProbeFile, ChangedPayloadTypeIsInvalid) {
  const std::string file = edit(signing::sign_probe_payload(payload(), key('a')),
                                [](json& j) { j["payloadType"] = "application/json"; });
  auto f = read(file);
  EXPECT_EQ(f.value().signature, ProbeSignature::invalid);
  EXPECT_NE(f.value().reason.find("payloadType 'application/json'"), std::string::npos)
      << f.value().reason;
}

TEST(ProbeFile, PayloadTypeIsCoveredByTheSignature) {
  // Signed over a different type, then relabelled: the PAE differs, so the signature fails.
  const auto k = key('a');
  const std::string p = payload();
  const std::string sig = signing::sign_detached(dsse_pae("application/json", p), k.secret_key);
  EXPECT_EQ(
      read(make_probe_envelope(p, k.public_key, sig, signing::probe_crypto())).value().signature,
      ProbeSignature::invalid);
}

TEST(ProbeFile, KeyIdThatDoesNotMatchTheKeyIsInvalid) {
  const std::string file = edit(signing::sign_probe_payload(payload(), key('a')), [](json& j) {
    j["signatures"][0]["keyid"] = std::string(32, '0');
  });
  auto f = read(file);
  EXPECT_EQ(f.value().signature, ProbeSignature::invalid);
  EXPECT_NE(f.value().reason.find("does not match the public key"), std::string::npos);
}

TEST(ProbeFile, TamperedPayloadIsNeverParsed) {
  // Garbage that is not JSON: the verdict is "invalid", not a parse error, because the
  // signature is checked before the payload is read.
  const std::string file = edit(signing::sign_probe_payload(payload(), key('a')), [](json& j) {
    j["payload"] = signing::base64_encode("{not json");
  });
  auto f = read(file);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::invalid);
}

TEST(ProbeFile, EnvelopeWithoutSignaturesIsUnsigned) {
  const std::string file = edit(signing::sign_probe_payload(payload(), key('a')),
                                [](json& j) { j["signatures"] = json::array(); });
  auto f = read(file);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::unsigned_file);
  EXPECT_EQ(f.value().reason, "the envelope has no signatures");
  ASSERT_TRUE(f.value().payload);
  EXPECT_EQ(f.value().payload->summary.gpu_count, 1);
}

TEST(ProbeFile, BarePayloadIsUnsigned) {
  auto f = read(payload());
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::unsigned_file);
  EXPECT_TRUE(f.value().payload);
}

// A file from a probe with the block-scaled cases: MXFP8 measured, NVFP4 waived (null).
std::string blackwell_payload(const json& recipes) {
  json j = json::parse(payload());
  j["summary"]["gemm_flop_per_s"]["fp8"] = 3.6e15;
  j["summary"]["gemm_flop_per_s"]["mxfp8"] = 3.3e15;
  j["summary"]["gemm_flop_per_s"]["nvfp4"] = nullptr;
  j["summary"]["gemm_recipes_measured"] = recipes;
  return j.dump();
}

TEST(ProbeFile, BlockScaledRecipesAreReadAndOlderFilesLackThem) {
  auto f = read(blackwell_payload({"fp8", "mxfp8"}));
  ASSERT_TRUE(f.ok()) << f.error().message;
  const ProbeSummary& s = f.value().payload->summary;
  EXPECT_DOUBLE_EQ(s.gemm_flop_per_s.mxfp8.value_or(0), 3.3e15);
  EXPECT_FALSE(s.gemm_flop_per_s.nvfp4);
  EXPECT_EQ(s.gemm_recipes_measured, (std::vector<std::string>{"fp8", "mxfp8"}));
  EXPECT_DOUBLE_EQ(s.gemm_flop_per_s.rate("mxfp8").value_or(0), 3.3e15);
  EXPECT_FALSE(s.gemm_flop_per_s.rate("fp4-typo"));
  // A file of a probe that predates the recipes: no block-scaled figures, nothing listed.
  auto old = read(payload());
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_FALSE(old.value().payload->summary.gemm_flop_per_s.mxfp8);
  EXPECT_TRUE(old.value().payload->summary.gemm_recipes_measured.empty());
}

TEST(ProbeFile, ARecipeListedWithoutItsRateIsRefused) {
  auto f = read(blackwell_payload({"nvfp4"}));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message,
            "payload: summary.gemm_recipes_measured: 'nvfp4' is listed but "
            "summary.gemm_flop_per_s.nvfp4 is null");
  auto g = read(blackwell_payload({"fp6"}));
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message,
            "payload: summary.gemm_recipes_measured: 'fp6' is not fp8, mxfp8 or nvfp4");
}

TEST(ProbeFile, UnknownSchemaVersionIsATypedError) {
  auto f = read(signing::sign_probe_payload(payload(2), key('a')));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, Errc::unsupported_version);
  EXPECT_EQ(f.error().message,
            "payload: schema_version 2 is not supported (this build reads 1); update gpuplan or "
            "convert the file");
}

TEST(ProbeFile, MissingSummaryFieldIsNamed) {
  auto f = read(signing::sign_probe_payload(payload(1, ""), key('a')));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, Errc::schema_error);
  EXPECT_EQ(
      f.error().message,
      "payload: summary.p2p_bytes_per_s: missing required field (use null when not measured)");
}

TEST(ProbeFile, MalformedJsonNamesThePosition) {
  auto f = read("{\"payloadType\": ");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, Errc::parse_error);
  EXPECT_NE(f.error().message.find("probe file: not valid JSON at line 1, column"),
            std::string::npos)
      << f.error().message;
}

TEST(ProbeFile, EnvelopeFieldsAreNamed) {
  const std::string good = signing::sign_probe_payload(payload(), key('a'));
  auto missing = read(edit(good, [](json& j) { j.erase("payload"); }));
  EXPECT_EQ(missing.error().message, "probe file: payload: missing required field");
  auto bad64 = read(edit(good, [](json& j) { j["payload"] = "not base64!"; }));
  EXPECT_EQ(bad64.error().message, "probe file: payload: not valid base64 (RFC 4648, padded)");
  auto short_sig = read(
      edit(good, [](json& j) { j["signatures"][0]["sig"] = signing::base64_encode("short"); }));
  EXPECT_EQ(short_sig.error().message,
            "probe file: signatures[0].sig: expected base64 of 64 bytes");
  auto alg = read(edit(good, [](json& j) { j["signatures"][0]["alg"] = "RSA"; }));
  EXPECT_EQ(alg.error().message,
            "probe file: signatures[0].alg: 'RSA' is not supported (expected Ed25519)");
  auto extra = read(edit(good, [](json& j) { j["comment"] = "hi"; }));
  EXPECT_EQ(extra.error().code, Errc::schema_error);
  EXPECT_NE(extra.error().message.find("comment: unknown field"), std::string::npos);
}

TEST(ProbeFile, OversizeFileIsRejectedBeforeParsing) {
  auto f = read(std::string(kMaxProbeFileBytes + 1, ' '));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code, Errc::too_large);
  EXPECT_NE(f.error().message.find("the limit is 8388608 bytes"), std::string::npos);
}

// Made natively by tests/probe/make_fixture.sh (gpuplan-probe --simulate h100-sxm5-80gb:2) and
// read here natively and in WebAssembly: the whole pipeline across both builds.
TEST(ProbeFile, SimulatedProbeFixtureVerifiesAndMatchesTheCatalog) {
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) +
                   "/tests/probe/fixtures/simulated-h100x2.probe.json");
  ASSERT_TRUE(in) << "fixture missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string fixture_key =
      "mjPPZIkqsF5YA4oFMkNOkr0LAo46fSccrpjd7EMs3OY=";  // tests/probe/fixtures/test-probe-key
  auto f = read(ss.str(), {fixture_key});
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::valid) << f.value().reason;
  EXPECT_TRUE(f.value().trusted);
  const ProbePayload& p = *f.value().payload;
  EXPECT_TRUE(p.simulated);
  EXPECT_EQ(p.results_failed, 0);
  const ProbeSummary& s = p.summary;
  EXPECT_EQ(s.gpu_count, 2);
  EXPECT_EQ(s.catalog_gpu_id.value_or(""), "h100-sxm5-80gb");
  // data/gpus/h100-sxm5-80gb.json: bf16 989 TFLOPS x 0.75, 3350 GB/s x 0.88; 2 % jitter band.
  EXPECT_NEAR(s.gemm_flop_per_s.bf16.value_or(0), 989e12 * 0.75, 989e12 * 0.75 * 0.02);
  EXPECT_NEAR(s.hbm_copy_bytes_per_s.value_or(0), 3350e9 * 0.88, 3350e9 * 0.88 * 0.02);
  EXPECT_TRUE(s.p2p_bytes_per_s);
  EXPECT_TRUE(s.allreduce_busbw_bytes_per_s);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// Over a thousand mutations of one signed file: each is rejected (an error, or a signature
// verdict other than valid), or, when it does not touch the signed content (JSON whitespace, key
// order, a duplicated key with the same value), it still verifies to the same payload bytes.
TEST(ProbeFileTampering, EveryMutationIsRejectedOrVerifiesToTheSamePayload) {
  const auto k = key('a');
  const std::string original = signing::sign_probe_payload(payload(), k);
  const std::string signed_payload = payload();
  int mutations = 0, rejected = 0, same = 0;
  auto check = [&](const std::string& text, const std::string& what) {
    ++mutations;
    auto f = read(text);
    if (!f.ok() || f.value().signature != ProbeSignature::valid) {
      ++rejected;
      return;
    }
    ++same;
    EXPECT_EQ(f.value().payload_bytes, signed_payload) << what << " verified to different bytes";
  };
  const json env = json::parse(original);
  const std::string p = *signing::base64_decode(env["payload"].get<std::string>());
  const std::string sig = *signing::base64_decode(env["signatures"][0]["sig"].get<std::string>());
  // Every byte of the payload, flipped (one bit).
  for (size_t i = 0; i < p.size(); ++i) {
    std::string q = p;
    q[i] = static_cast<char>(q[i] ^ 0x01);
    json j = env;
    j["payload"] = signing::base64_encode(q);
    check(j.dump(), "payload byte " + std::to_string(i));
  }
  // Every byte of the signature.
  for (size_t i = 0; i < sig.size(); ++i) {
    std::string s = sig;
    s[i] = static_cast<char>(s[i] ^ 0x80);
    json j = env;
    j["signatures"][0]["sig"] = signing::base64_encode(s);
    check(j.dump(), "signature byte " + std::to_string(i));
  }
  // Truncations of the file text.
  for (size_t n = 0; n < original.size(); n += std::max<size_t>(1, original.size() / 100)) {
    check(original.substr(0, n), "truncated at " + std::to_string(n));
  }
  // Another key, with and without a matching key id; another payload type.
  {
    json j = env;
    j["signatures"][0]["public_key"] = signing::base64_encode(key('b').public_key);
    check(j.dump(), "swapped key");
    j["signatures"][0]["keyid"] = signing::key_id(key('b').public_key);
    check(j.dump(), "swapped key and key id");
    for (const char* type :
         {"application/json", "application/vnd.gpuplan.probe+json; version=2", ""}) {
      json t = env;
      t["payloadType"] = type;
      check(t.dump(), std::string("payload type ") + type);
    }
  }
  // Duplicated JSON keys: a second "payload" holding other bytes (the parser keeps the last one).
  {
    const std::string forged = signing::base64_encode(payload(1, R"(, "p2p_bytes_per_s": 1e15)"));
    std::string text = original;
    text.insert(text.rfind('}'), ", \"payload\": \"" + forged + "\"");
    check(text, "duplicated payload key with other bytes");
    std::string same_dup = original;
    same_dup.insert(same_dup.rfind('}'), ", \"payload\": " + env["payload"].dump());
    check(same_dup, "duplicated payload key with the same bytes");
  }
  // Changes outside the signed content: whitespace and key order.
  check(env.dump(2), "pretty-printed envelope");
  check(json::parse(original).dump(), "re-serialised envelope");
  EXPECT_GE(mutations, 1000);
  EXPECT_GE(same, 3);  // the formatting changes and the harmless duplicate still verify
  EXPECT_EQ(rejected + same, mutations);
  EXPECT_LE(same, 4) << "a mutation of signed content verified";
}

}  // namespace
}  // namespace gpuplan
