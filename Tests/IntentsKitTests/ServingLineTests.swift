@testable import IntentMeshCore
import Testing

@Suite("The serving line servers print and launchers read")
struct ServingLineTests {
  @Test("the address and port of the first serving line, IPv4, IPv6 or a name")
  func reads() {
    let printed = ServingLine.text(service: "messaging-service", app: "UnicornChat", address: "127.0.0.1:50061")
    #expect(printed == "messaging-service (UnicornChat) serving on 127.0.0.1:50061")
    let output = "starting\n\(printed)\ngateway (IntentMesh) serving on [::1]:50060\n"
    #expect(ServingLine.address(in: output) == ServingLine.Address(text: "127.0.0.1:50061", port: 50061))
    #expect(ServingLine.address(in: "gateway (IntentMesh) serving on [::1]:50060  \n")?.port == 50060)
    #expect(ServingLine.address(in: "x (Y) serving on localhost:7\n")?.text == "localhost:7")
  }

  @Test("no serving line, or one without a usable port, is no address")
  func refuses() {
    #expect(ServingLine.address(in: "") == nil)
    #expect(ServingLine.address(in: "messaging-service starting\n") == nil)
    #expect(ServingLine.address(in: "x (Y) serving on 127.0.0.1\n") == nil)
    #expect(ServingLine.address(in: "x (Y) serving on 127.0.0.1:http\n") == nil)
    #expect(ServingLine.address(in: "x (Y) serving on 127.0.0.1:0\n") == nil)
    // Half a line: the port may be cut short ("50061" read as "50").
    #expect(ServingLine.address(in: "x (Y) serving on 127.0.0.1:50") == nil)
  }
}
