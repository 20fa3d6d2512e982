using AspnetApi.Data;
using AspnetApi.Endpoints;
using AspnetApi.Http;

var builder = WebApplication.CreateBuilder(args);
builder.ConfigureServer();
builder.ConfigureQuietLogging();
builder.ConfigureJson();
builder.Services.AddForumData(DatabaseSettings.FromEnvironment());

var app = builder.Build();
app.UseProblemsForErrors();

app.MapHealthEndpoints();
app.MapCommentEndpoints();
app.MapUserEndpoints();

app.Run();
