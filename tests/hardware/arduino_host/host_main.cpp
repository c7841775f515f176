// Runs the sketch for 3 simulated seconds: a 7-byte NTAG from 0.5 s to 1.2 s, a 4-byte MIFARE
// Classic (with a 0x0F byte, to check zero padding) from 2.0 s to 2.4 s.
#include <cstring>

#include "Arduino.h"
#include "MFRC522.h"
#include "SPI.h"

HostSerial Serial;
HostSPI SPI;
static unsigned long now_ms = 0;
unsigned long millis() { return now_ms; }

static const byte NTAG[7] = {0x04, 0xA2, 0x24, 0xB2, 0xC1, 0x5E, 0x80};
static const byte CLASSIC[4] = {0xDE, 0xAD, 0xBE, 0x0F};

static const byte *card_in_field(byte *size) {
  if (now_ms >= 500 && now_ms < 1200) {
    *size = 7;
    return NTAG;
  }
  if (now_ms >= 2000 && now_ms < 2400) {
    *size = 4;
    return CLASSIC;
  }
  return nullptr;
}

MFRC522::StatusCode MFRC522::PICC_WakeupA(byte *, byte *) {
  byte size = 0;
  return card_in_field(&size) ? STATUS_OK : STATUS_TIMEOUT;
}

bool MFRC522::PICC_ReadCardSerial() {
  byte size = 0;
  const byte *card = card_in_field(&size);
  if (!card) return false;
  uid.size = size;
  std::memcpy(uid.uidByte, card, size);
  return true;
}

#include SKETCH

int main() {
  setup();
  for (now_ms = 0; now_ms < 3000; now_ms += 10) {
    loop();
  }
  return 0;
}
