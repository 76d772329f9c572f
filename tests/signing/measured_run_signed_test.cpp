// A gpuplan-measure file signed like a probe file (libsodium's Ed25519 through the signing
// library): the probe-file reader verifies it, and one changed digit breaks the signature.
#include <gtest/gtest.h>

#include "evidence/measured_payload.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"

namespace gpuplan {
namespace {

using test::measured_payload;

TEST(MeasuredRun, SignedLikeAProbeFileAndTamperingIsCaught) {
  const auto key = signing::keypair_from_seed(std::string(32, '\x07'));
  const std::string text = measured_payload();
  auto bare = signing::read_probe_file(text, {});
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(bare.value().signature, ProbeSignature::unsigned_file);
  ASSERT_TRUE(bare.value().measured);
  EXPECT_FALSE(bare.value().payload);

  const std::string envelope = signing::sign_probe_payload(text, key);
  auto f = signing::read_probe_file(envelope, {});
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f.value().signature, ProbeSignature::valid);
  ASSERT_TRUE(f.value().measured);
  EXPECT_EQ(f.value().measured->steps, 20);

  // One changed digit of the step time in the payload: the signature no longer verifies.
  std::string changed = text;
  changed.replace(changed.find("\"median\": 0.02"), 14, "\"median\": 0.01");
  std::string forged = envelope;
  forged.replace(forged.find(signing::base64_encode(text)), signing::base64_encode(text).size(),
                 signing::base64_encode(changed));
  auto t = signing::read_probe_file(forged, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t.value().signature, ProbeSignature::invalid);
  EXPECT_FALSE(t.value().measured);
}

}  // namespace
}  // namespace gpuplan
