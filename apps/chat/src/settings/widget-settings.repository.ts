import { Injectable } from '@nestjs/common';
import { Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { WidgetSettings } from '../schema.generated';
import { queryRows, sql } from '../statements';

/** Each account's widget settings (schema `chat`). */
@Injectable()
export class WidgetSettingsRepository {
  constructor(private readonly db: DataSource) {}

  async allowedOrigins(accountId: string): Promise<string[]> {
    const rows = await queryRows<Columns<WidgetSettings, 'allowed_origins'>>(
      this.db,
      sql('chat_widget_settings_allowed_origins')`SELECT allowed_origins FROM chat.widget_settings WHERE account_id = $1`,
      [accountId],
    );
    return rows[0]?.allowed_origins ?? [];
  }

  async setAllowedOrigins(accountId: string, origins: string[]): Promise<string[]> {
    const rows = await queryRows<Columns<WidgetSettings, 'allowed_origins'>>(
      this.db,
      sql('chat_widget_settings_set_allowed_origins')`INSERT INTO chat.widget_settings (account_id, allowed_origins) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE SET allowed_origins = excluded.allowed_origins, updated_at = now()
       RETURNING allowed_origins`,
      [accountId, origins],
    );
    return (rows[0] as { allowed_origins: string[] }).allowed_origins;
  }
}
