import FileDownload
import Foundation
import Testing

@Suite("RemoteTime: HTTP dates")
struct RemoteTimeTests {
    @Test("an IMF-fixdate is read by hand to the date the formatter wrote, surrounding blanks ignored")
    func handReadingAgreesWithTheFormatter() {
        // 1970, the RFC's example, 29 Feb 2000, 2023, the last 32-bit second, the last second of 2099
        for seconds in [0, 784_111_777, 951_782_400, 1_700_000_000, 2_147_483_647, 4_102_444_799] as [TimeInterval] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = RemoteTime.httpDate(date)
            #expect(RemoteTime.imfFixdate(text) == date, "\(text)")
            #expect(RemoteTime.date(httpDate: " \(text) ") == date, "\(text)")
        }
        #expect(RemoteTime.date(httpDate: "Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("anything but a well-formed IMF-fixdate is left to the formatter",
          arguments: ["Sun, 31 Feb 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                      "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 24:00:00 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
                      "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT!", ""])
    func othersAreNotReadByHand(text: String) {
        #expect(RemoteTime.imfFixdate(text) == nil)
    }
}
