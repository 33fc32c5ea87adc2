import { ApiProperty } from '@nestjs/swagger';
import { PLANS, Plan } from './plans';

export class AccountDto {
  @ApiProperty({ format: 'uuid', example: '0f8fad5b-d9cb-469f-a165-70867728950e' })
  id!: string;

  @ApiProperty({ example: 'Acme Rentals' })
  name!: string;

  @ApiProperty({ enum: PLANS, example: 'scale' })
  plan!: Plan;
}

export class ApiKeySummaryDto {
  @ApiProperty({ format: 'uuid', example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  id!: string;

  @ApiProperty({ description: 'The first characters of the key, to recognise it.', example: 'svc_cust_Xq3b' })
  prefix!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:04:05.123456+00:00' })
  created_at!: string;
}

export class WhoamiResponseDto {
  @ApiProperty({ type: AccountDto })
  account!: AccountDto;

  @ApiProperty({ type: ApiKeySummaryDto })
  key!: ApiKeySummaryDto;

  @ApiProperty({ description: 'Address of the web application.', example: 'https://app.example.com' })
  app_url!: string;

  @ApiProperty({
    description: 'The account\'s public widget id, for the chat embed: `window.SvcChat = { widget: "wgt_…" }`. Not a secret.',
    example: 'wgt_5f0c6d3e9a1b4c2d8e7f6a5b4c3d2e1f',
  })
  widget!: string;
}
