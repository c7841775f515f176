// Trackside seat reader: an MFRC522 (RC522) 13.56 MHz reader on an Arduino, speaking the
// Trackside line protocol over USB serial (docs/protocols/line.md):
//
//   INFO<TAB>firmware=trackside-mfrc522<TAB>version=1       once, after boot
//   SCAN<TAB>uid=04A224B2C15E80                             every ~150 ms while a card is on
//
// Trackside turns the repeated SCAN lines into one tag_present, and a tag_removed once they
// stop (the reader's removal_timeout_s, 0.5 s by default). Configure it as:
//
//   [[readers]]
//   name = "red-seat"
//   protocol = "line"
//   port = "/dev/serial/by-id/usb-Arduino__www.arduino.cc__0043_…-if00"
//   seat = 1
//
// The Arduino resets when the port opens; Trackside waits 2 s (reset_wait_s) and discards
// what the board printed meanwhile.
//
// Needs the "MFRC522" library by GithubCommunity (miguelbalboa/rfid), from the Library Manager.
// Wiring (Uno/Nano; the RC522 is a 3.3 V part: power it from 3.3 V, see hardware/wiring.md):
//   RC522 SDA(SS) -> D10, SCK -> D13, MOSI -> D11, MISO -> D12, RST -> D9, 3.3V -> 3.3V, GND -> GND

#include <SPI.h>
#include <MFRC522.h>

static const uint8_t SS_PIN = 10;
static const uint8_t RST_PIN = 9;
static const unsigned long BAUD = 9600;          // Trackside's default for protocol "line"
static const unsigned long REPORT_EVERY_MS = 150; // well under the 0.5 s removal timeout

MFRC522 rfid(SS_PIN, RST_PIN);
unsigned long lastReportMs = 0;

// A card already read and halted does not answer REQA, only WUPA: waking every card in the
// field each time is what lets us see the same card again and again while it stays.
static bool readCardInField() {
  byte atqa[2];
  byte atqaSize = sizeof(atqa);
  MFRC522::StatusCode status = rfid.PICC_WakeupA(atqa, &atqaSize);
  if (status != MFRC522::STATUS_OK && status != MFRC522::STATUS_COLLISION) {
    return false;
  }
  if (!rfid.PICC_ReadCardSerial()) {
    return false;
  }
  return true;
}

static void printUidHex(const MFRC522::Uid &uid) {
  for (byte i = 0; i < uid.size; i++) {
    if (uid.uidByte[i] < 0x10) {
      Serial.print('0');
    }
    Serial.print(uid.uidByte[i], HEX);  // Arduino prints hex digits in upper case
  }
}

void setup() {
  Serial.begin(BAUD);
  SPI.begin();
  rfid.PCD_Init();
  Serial.print("INFO\tfirmware=trackside-mfrc522\tversion=1\r\n");
}

void loop() {
  unsigned long now = millis();
  if (now - lastReportMs < REPORT_EVERY_MS) {
    return;
  }
  lastReportMs = now;
  if (!readCardInField()) {
    return;
  }
  Serial.print("SCAN\tuid=");
  printUidHex(rfid.uid);
  Serial.print("\r\n");
  rfid.PICC_HaltA();
}
