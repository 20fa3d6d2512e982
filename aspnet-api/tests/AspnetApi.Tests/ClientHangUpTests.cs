using System.Net;
using System.Net.Sockets;
using System.Text;

namespace AspnetApi.Tests;

/// <summary>
/// A client that hangs up in the middle of its request is the client's failure, not the
/// database's: the app keeps its pooled connections and logs no error. Under load a generator that
/// stops closes hundreds of connections with requests in flight; when each such hang-up was taken
/// for a database outage, the whole pool was dropped and reopened hundreds of times (README.md,
/// "One core").
/// </summary>
[Collection(AppCollection.Name)]
public sealed class ClientHangUpTests(RunningApp app)
{
    [Fact]
    public async Task HangUpMidBody_KeepsThePoolAndLogsNothing()
    {
        Assert.Equal(HttpStatusCode.OK, (await app.Http.GetAsync("/rest/comment/1")).StatusCode);
        var opened = await ServerCounters.ConnectionsDuring(async () =>
        {
            for (var i = 0; i < 5; i++)
                await SendHalfARequestAndHangUp();
            // The app finds each body cut short on its own time; a dropped pool would show as
            // connections opened for the requests after it (one at a time: one pooled connection
            // is enough for each, so a kept pool opens none).
            await Task.Delay(500);
            for (var i = 1; i <= 5; i++)
                Assert.Equal(HttpStatusCode.OK, (await app.Http.GetAsync($"/rest/comment/{i}")).StatusCode);
        });
        Assert.Equal(0, opened);
        Assert.DoesNotContain("fail:", app.Output);
    }

    /// <summary>Headers announcing 100 body bytes, 10 of them sent, then a reset (RST), as a stopped load generator leaves it.</summary>
    async Task SendHalfARequestAndHangUp()
    {
        var address = app.Http.BaseAddress!;
        using var client = new TcpClient();
        await client.ConnectAsync(address.Host, address.Port);
        var request = "POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      + "Accept: application/json\r\nContent-Length: 100\r\n\r\n{\"query\":";
        await client.GetStream().WriteAsync(Encoding.ASCII.GetBytes(request));
        await Task.Delay(100);
        client.LingerState = new LingerOption(true, 0);
        client.Close();
    }
}
