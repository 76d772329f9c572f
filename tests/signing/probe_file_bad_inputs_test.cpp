// Probe files that are not what they claim, read as the CLI and the page read them (the core's
// reader with the signing library's crypto): each message names the file or the field, and the
// code tells the CLI's exit. The same cases for the other files: tests/core/query/bad_inputs_test.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"

namespace gpuplan {
namespace {

void expect_error(const std::string& text, Errc code, const std::string& message) {
  auto r = signing::read_probe_file(text, {});
  ASSERT_FALSE(r.ok()) << "accepted: " << text.substr(0, 80);
  EXPECT_EQ(r.error().code, code) << message;
  EXPECT_EQ(r.error().message, message);
}

TEST(ProbeFileBadInputs, NameTheFileOrTheFieldAndTheProblem) {
  expect_error("", Errc::parse_error, "probe file: file is empty");
  // All '[': parsed, this would be a nesting error, so the size error proves nothing was parsed.
  expect_error(std::string(100u << 20, '['), Errc::too_large,
               "probe file: file is 104857600 bytes; the limit is 8388608 bytes");
  expect_error(R"({"payloadType": "x", "payload": "", "signatures": {}})", Errc::schema_error,
               "probe file: signatures: expected an array, got an object");
  // No signatures field at all reads as an unsigned envelope (it used to dereference null): its
  // payload, base64 of "{}", is then checked like any other.
  expect_error(R"({"payloadType": "application/vnd.gpuplan.probe+json", "payload": "e30="})",
               Errc::schema_error, "payload: schema_version: missing required field");
  expect_error(R"({"schema_version": 2, "kind": "gpuplan-probe"})", Errc::unsupported_version,
               "payload: schema_version 2 is not supported (this build reads 1); update gpuplan "
               "or convert the file");
}

}  // namespace
}  // namespace gpuplan
