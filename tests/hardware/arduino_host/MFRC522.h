// The slice of the MFRC522 library (miguelbalboa/rfid) API the sketch uses, with the same
// signatures, backed by a scripted card field for host tests.
#pragma once
#include "Arduino.h"

class MFRC522 {
 public:
  enum StatusCode : byte { STATUS_OK, STATUS_ERROR, STATUS_COLLISION, STATUS_TIMEOUT };
  typedef struct {
    byte size;
    byte uidByte[10];
    byte sak;
  } Uid;
  Uid uid;

  MFRC522(byte, byte) : uid() {}
  void PCD_Init() {}
  StatusCode PICC_WakeupA(byte *bufferATQA, byte *bufferSize);
  bool PICC_ReadCardSerial();
  StatusCode PICC_HaltA() { return STATUS_ERROR; }  // the real one "fails" when HLTA succeeds
};
