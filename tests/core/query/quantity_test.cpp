// Numbers as people type them: suffixes, exponents, thousands separators, and clear errors.
#include <gtest/gtest.h>

#include "gpuplan/quantity.h"

namespace gpuplan {
namespace {

double read(const char* text) {
  auto r = parse_quantity(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : -1;
}

TEST(Quantity, ReadsSuffixesExponentsAndSeparators) {
  EXPECT_EQ(read("50M"), 5e7);
  EXPECT_EQ(read("50m"), 5e7);
  EXPECT_EQ(read("2e9"), 2e9);
  EXPECT_EQ(read("1.5k"), 1500);
  EXPECT_EQ(read("2,000,000"), 2e6);
  EXPECT_EQ(read("2 000 000"), 2e6);
  EXPECT_EQ(read("2_000_000"), 2e6);
  EXPECT_EQ(read(" 7B "), 7e9);
  EXPECT_EQ(read("1.2 T"), 1.2e12);
  EXPECT_EQ(read("16"), 16);
  EXPECT_EQ(read("0.25"), 0.25);
  EXPECT_EQ(read("1,234.5"), 1234.5);
  EXPECT_EQ(read("-5"), -5);
}

TEST(Quantity, ReadsChineseCountingWords) {
  // 万 is ten thousand and 亿 a hundred million: "2亿" tokens is 2e8, not 2.
  EXPECT_EQ(read("2亿"), 2e8);
  EXPECT_EQ(read("1.5万"), 15000);
  EXPECT_EQ(read("3千"), 3000);
  EXPECT_EQ(read("5百万"), 5e6);
  EXPECT_EQ(read("5千万"), 5e7);
  EXPECT_EQ(read("1万亿"), 1e12);
  EXPECT_EQ(read(" 20 亿 "), 2e9);
  EXPECT_FALSE(parse_quantity("亿").ok());
  EXPECT_FALSE(parse_quantity("2亿M").ok());
}

TEST(Quantity, RejectsWhatIsNotANumberWithTheText) {
  auto expect_error = [](const char* text, const std::string& message) {
    auto r = parse_quantity(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, Errc::parse_error);
    EXPECT_EQ(r.error().message, message);
  };
  expect_error("", "'' is not a number: it is empty (examples: 50M, 2e9, 1.5k, 2,000,000)");
  expect_error(
      "fifty",
      "'fifty' is not a number: unexpected characters (examples: 50M, 2e9, 1.5k, 2,000,000)");
  expect_error("1,5",
               "'1,5' is not a number: thousands separators must split groups of three digits "
               "(examples: 50M, 2e9, 1.5k, 2,000,000)");
  expect_error(
      "12,34,567",
      "'12,34,567' is not a number: thousands separators must split groups of three digits "
      "(examples: 50M, 2e9, 1.5k, 2,000,000)");
  expect_error("5e",
               "'5e' is not a number: unexpected characters (examples: 50M, 2e9, 1.5k, 2,000,000)");
  expect_error("M",
               "'M' is not a number: unexpected characters (examples: 50M, 2e9, 1.5k, 2,000,000)");
  expect_error("1e400",
               "'1e400' is not a number: it is too large (examples: 50M, 2e9, 1.5k, 2,000,000)");
  expect_error(
      "nan", "'nan' is not a number: unexpected characters (examples: 50M, 2e9, 1.5k, 2,000,000)");
}

}  // namespace
}  // namespace gpuplan
