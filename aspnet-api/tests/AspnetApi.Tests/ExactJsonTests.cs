using System.Net;

namespace AspnetApi.Tests;

/// <summary>
/// Byte-exact bodies for a few seeded rows (seed 1, scale 1; values read from the database when
/// these were written). Express must answer the very same bytes.
/// </summary>
// Both API styles run these tests: the two classes at the end of this file.
public abstract class ExactJsonTests(RunningApp app)
{
    const string Comment1 =
        """{"id":1,"threadId":1,"userId":1,"body":"praesentium cena alii","dateMade":"2021-03-04","dateLastUpdated":"2021-08-14"}""";
    const string Comment2 =
        """{"id":2,"threadId":2,"userId":1,"body":"nemo caelestis peior","dateMade":"2021-01-04","dateLastUpdated":"2021-09-07"}""";
    const string User1 =
        """{"id":1,"name":"Aaliyah.Bosco","email":"Clarabelle.Osinski55@hotmail.com","phone":"893-788-0018 x04956"}""";
    const string User6 =
        """{"id":6,"name":"Walton2","email":"Eulalia58@yahoo.com","phone":"1-945-824-5054 x838"}""";

    [Theory]
    [InlineData("/rest/comment/1", Comment1)]
    [InlineData("/rest/comment/200000",
        """{"id":200000,"threadId":200,"userId":1000,"body":"dolor angulus ambulo","dateMade":"2020-07-06","dateLastUpdated":"2022-03-25"}""")]
    [InlineData("/rest/comments/2", $"[{Comment1},{Comment2}]")]
    [InlineData("/rest/user/1/comment",
        """{"id":1,"threadId":1,"userId":1,"body":"praesentium cena alii","dateMade":"2021-03-04","dateLastUpdated":"2021-08-14","user":""" + User1 + "}")]
    [InlineData("/rest/user/6/comments/2",
        """[{"id":1001,"threadId":1,"userId":6,"body":"cometes aqua decor","dateMade":"2021-04-26","dateLastUpdated":"2022-01-05","user":""" + User6 + """},{"id":1002,"threadId":2,"userId":6,"body":"vigilo verumtamen calco","dateMade":"2021-01-12","dateLastUpdated":"2022-05-14","user":""" + User6 + "}]")]
    public async Task KnownRows_AreWrittenByteForByte(string path, string expected)
    {
        var reply = await Reply.Get(app.Http, path);

        Assert.Equal(HttpStatusCode.OK, reply.Status);
        Assert.Equal(Reply.JsonType, reply.ContentType);
        Assert.Equal(expected, reply.Body);
    }
}

[Collection(AppCollection.Name)]
public sealed class ExactJsonTestsOnMinimalApis(RunningApp app) : ExactJsonTests(app);

[Collection(ControllersAppCollection.Name)]
public sealed class ExactJsonTestsOnControllers(RunningAppWithControllers app) : ExactJsonTests(app);
