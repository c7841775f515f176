#pragma once
struct HostSPI {
  void begin() {}
};
extern HostSPI SPI;
