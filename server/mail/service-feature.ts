// Email as a feature (SPEC 4.7, 6.3): the outbox sender and the mail producers on the scheduler, the mail that
// follows results, achievements and the events' reminders, and the one-click unsubscribe (RFC 8058) page and form
// bodies. The account mailer of the built-in identity provider is reused when there is one (same transport).
import { defineFeature } from "../kernel/feature.ts";
import { MailService } from "./mail.ts";
import { unsubscribePage } from "./page.ts";
import { acceptUnsubscribeForms } from "./routes.ts";

export const mailServiceFeature = defineFeature({
  name: "mail",
  needs: ["store", "accountStore", "matchStore", "accounts", "identity", "ladders", "events"],
  build: async (kernel, { store, accountStore, matchStore, accounts, identity, ladders }) => {
    const { config, settings, scheduler, log, http } = kernel;
    const mail = new MailService({
      config,
      store,
      accountStore,
      matchStore,
      settings,
      scheduler,
      log,
      mailer: identity?.mailer ?? null,
      admins: async () => (await accountStore.admins()).filter((a) => accounts.adminNow(a)).map((a) => a.id),
      ladders: () => ladders,
    });
    await mail.start();
    acceptUnsubscribeForms(http);
    return mail;
  },
  listeners: (mail) => ({
    MatchFinished: (e) => mail.producers.onMatchFinished(e),
    // The achievement mail (SPEC 6.3), once per account, event and achievement (its dedupe key); never the flag.
    AchievementEarned: async (e) => {
      await mail.producers.achievementEarned({
        accountId: e.accountId,
        eventId: e.eventId,
        event: e.eventName,
        achievementId: e.achievementId,
        achievement: e.achievementName,
      });
    },
  }),
  // Reminders of the events' own windows go out as event_reminders mail.
  jobs: (mail, _kernel, { events }) => [events.reminderJob((r) => mail.producers.remindEvent(r))],
  pages: (http) => unsubscribePage(http),
  stop: (mail) => mail.stop(),
});
