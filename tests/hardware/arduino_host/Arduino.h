// Just enough of the Arduino core to compile and run a sketch on the host, for tests.
#pragma once
#include <cstdint>
#include <cstdio>

typedef uint8_t byte;
#define HEX 16

unsigned long millis();

struct HostSerial {
  void begin(unsigned long) {}
  void print(const char *text) { std::fputs(text, stdout); }
  void print(char c) { std::fputc(c, stdout); }
  void print(byte value, int base) {
    // Arduino's Print::printNumber writes hex digits in upper case, without leading zeros.
    if (base == HEX) {
      std::printf("%X", static_cast<unsigned>(value));
    } else {
      std::printf("%u", static_cast<unsigned>(value));
    }
  }
};
extern HostSerial Serial;
